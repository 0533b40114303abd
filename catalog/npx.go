package catalog

import (
	"path/filepath"
	"regexp"
	"strings"
)

// npmCacheDir is the working directory's shared npm cache; isolated caches live beneath it.
const npmCacheDir = ".npm-cache"

// pinNpxCaches gives every entry whose command is exactly npx its own NPM_CONFIG_CACHE, so npx
// servers of different sessions never share (and corrupt) a host-wide cache. Entries of one
// session that run the byte-identical package spec would race to populate the same
// _npx/<hash> directory on a cold cache, so each of those gets an isolated cache of its own.
// A value the entry already sets is the operator's call and is kept.
func pinNpxCaches(servers map[string]*Server, workdir string) {
	specs := map[string]int{}
	for _, s := range servers {
		if s.Command == "npx" {
			specs[npxPackageSpec(s.Args)]++
		}
	}
	for name, s := range servers {
		if s.Command != "npx" {
			continue
		}
		if _, ok := s.Env["NPM_CONFIG_CACHE"]; ok {
			continue
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		cache := filepath.Join(workdir, npmCacheDir)
		if spec := npxPackageSpec(s.Args); spec != "" && specs[spec] > 1 {
			cache = filepath.Join(cache, "isolated", sanitizeName(name))
		}
		s.Env["NPM_CONFIG_CACHE"] = cache
	}
}

// npxPackageSpec is what npx keys its install directory on: the -p/--package value, else the
// first positional argument.
func npxPackageSpec(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "-p" || a == "--package") && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--package="):
			return strings.TrimPrefix(a, "--package=")
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return ""
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

func sanitizeName(name string) string { return unsafeName.ReplaceAllString(name, "_") }
