package mcpauth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// MinKeyLength is the least ZIMMER_SECRET_KEY Zimmer accepts: 32 characters (e.g. `openssl rand
// -hex 32` gives 64).
const MinKeyLength = 32

// ErrUnsealable means a sealed value was not made with this key (a changed ZIMMER_SECRET_KEY) or
// was altered; the credential it held has to be authorized again.
var ErrUnsealable = errors.New("sealed value cannot be opened with this ZIMMER_SECRET_KEY")

// Sealer encrypts credentials at rest with AES-256-GCM under a key derived from
// ZIMMER_SECRET_KEY. The additional data binds a sealed value to what it is for (a server's
// name), so a value copied onto another record does not open.
type Sealer struct{ aead cipher.AEAD }

// NewSealer derives the AES-256 key from secret (SHA-256 of it: the secret is already random,
// so no stretching is needed, only a fixed length).
func NewSealer(secret string) (*Sealer, error) {
	if len(secret) < MinKeyLength {
		return nil, fmt.Errorf("ZIMMER_SECRET_KEY must be at least %d characters", MinKeyLength)
	}
	key := sha256.Sum256([]byte(secret))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("AES key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("AES-GCM: %w", err)
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain for the purpose named by ad; the result is printable (nonce ‖ ciphertext,
// base64url).
func (s *Sealer) Seal(plain []byte, ad string) string {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(ad)))
}

// Open decrypts a value Seal made for the same ad.
func (s *Sealer) Open(sealed, ad string) ([]byte, error) {
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return nil, ErrUnsealable
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], []byte(ad))
	if err != nil {
		return nil, ErrUnsealable
	}
	return plain, nil
}
