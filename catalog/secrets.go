package catalog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
)

// ErrSecretsFile is a secrets file (ZIMMER_SECRETS_FILE) that cannot be used. Its message names
// the file and the line, never a value.
var ErrSecretsFile = errors.New("secrets file unusable")

var variableName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// maxSecretsFile bounds what is read of the secrets file.
const maxSecretsFile = 1 << 20

// SecretsLookup is where a catalog entry's ${VAR}s get their values, in order: the secrets file
// (path, "" for none), then env (os.LookupEnv). The file is read now, so a prepare sees the file
// as it is at that moment. Which names may be read at all (never Zimmer's own; only those in
// ZIMMER_MCP_VARIABLES when it is set) is decided before this lookup is asked.
func SecretsLookup(path string, env func(string) (string, bool)) (func(string) (string, bool), error) {
	file := map[string]string{}
	if path != "" {
		var err error
		if file, err = readSecretsFile(path); err != nil {
			return nil, err
		}
	}
	return func(name string) (string, bool) {
		if v, ok := file[name]; ok {
			return v, true
		}
		if env == nil {
			return "", false
		}
		return env(name)
	}, nil
}

// readSecretsFile reads KEY=value lines; blank lines and # comments are skipped. The file must
// be readable by its owner alone (0600 or stricter): it holds the fleet's credentials.
func readSecretsFile(path string) (map[string]string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSecretsFile, path, errors.Unwrap(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSecretsFile, path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrSecretsFile, path)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o; it must be 0600 (chmod 600 %s)", ErrSecretsFile, path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSecretsFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSecretsFile, path, err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxSecretsFile)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || !variableName.MatchString(key) {
			return nil, fmt.Errorf("%w: %s line %d is not KEY=value with KEY in capitals, digits and _", ErrSecretsFile, path, n)
		}
		out[key] = value
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrSecretsFile, path, err)
	}
	return out, nil
}
