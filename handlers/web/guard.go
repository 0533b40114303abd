package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
)

// csrfField is the hidden form field every POST form carries.
const csrfField = "csrf_token"

// realm is the HTTP Basic realm; the browser keys its cached credential on it.
const realm = `Basic realm="Zimmer", charset="UTF-8"`

// requireBasic admits the one configured credential. Both parts are compared by SHA-256 digest
// in constant time, so neither their content nor their length leaks through timing.
func (h *Handler) requireBasic(c *gin.Context) {
	user, pass, ok := c.Request.BasicAuth()
	u, p := sha256.Sum256([]byte(user)), sha256.Sum256([]byte(pass))
	match := subtle.ConstantTimeCompare(u[:], h.user[:]) & subtle.ConstantTimeCompare(p[:], h.pass[:])
	if !ok || match != 1 {
		c.Header("WWW-Authenticate", realm)
		c.Header("Cache-Control", "no-store")
		c.String(http.StatusUnauthorized, "Zimmer's web UI needs the HTTP Basic credential configured as ZIMMER_WEB_USER and ZIMMER_WEB_PASSWORD.\n")
		c.Abort()
		return
	}
	c.Next()
}

// csrfSecret is a per-process key: tokens die with the process, which only costs a reload.
func newCSRFSecret() []byte {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails on supported platforms
	return key
}

// csrfToken mints a token for a form: a fresh nonce and its HMAC under the process key. The
// browser's cached Basic credential rides along on any cross-site POST, so the credential alone
// proves nothing about who built the request; a token only Zimmer's own pages carry does.
func (h *Handler) csrfToken() string {
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	return b64(nonce) + "." + b64(h.sign(nonce))
}

func (h *Handler) sign(nonce []byte) []byte {
	m := hmac.New(sha256.New, h.csrfKey)
	m.Write([]byte("zimmer-web-form\x00"))
	m.Write(nonce)
	return m.Sum(nil)
}

func (h *Handler) validToken(token string) bool {
	n, sig, ok := strings.Cut(token, ".")
	if !ok {
		return false
	}
	nonce, err1 := base64.RawURLEncoding.DecodeString(n)
	mac, err2 := base64.RawURLEncoding.DecodeString(sig)
	return err1 == nil && err2 == nil && len(nonce) == 16 && hmac.Equal(mac, h.sign(nonce))
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// requireSameOrigin guards every state-changing request: the browser's own provenance headers
// must not say cross-site (Sec-Fetch-Site, then Origin, then Referer, whichever is present),
// and the form must carry a token minted by this process. A refusal is 403 and changes nothing.
func (h *Handler) requireSameOrigin(c *gin.Context) {
	if c.Request.Method == http.MethodGet || c.Request.Method == http.MethodHead {
		c.Next()
		return
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxFormBytes)
	if reason := h.crossSite(c.Request); reason != "" {
		h.forbid(c, reason)
		return
	}
	if !h.validToken(c.PostForm(csrfField)) {
		h.forbid(c, "the form's security token is missing or invalid; reload the page and submit again")
		return
	}
	c.Next()
}

// maxFormBytes bounds a form body: a 500,000-character prompt, percent-encoded, fits.
const maxFormBytes = 8 << 20

// crossSite explains why r does not come from Zimmer's own pages, or returns "".
func (h *Handler) crossSite(r *http.Request) string {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return "the browser marked this request " + site + "; forms are accepted only from Zimmer's own pages"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if !h.ownOrigin(r, origin) {
			return "the request came from " + origin + ", not from Zimmer's own pages"
		}
		return ""
	}
	if ref := r.Header.Get("Referer"); ref != "" && !h.ownOrigin(r, ref) {
		return "the request was referred by another site"
	}
	return ""
}

// ownOrigin reports whether raw (an Origin or Referer) names this server: the Host the request
// was sent to, or the configured public URL (a proxy may rewrite Host).
func (h *Handler) ownOrigin(r *http.Request, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host) || (h.publicHost != "" && strings.EqualFold(u.Host, h.publicHost))
}

func (h *Handler) forbid(c *gin.Context, reason string) {
	h.log.Warn("web form refused as cross-site", "path", c.Request.URL.Path, "reason", reason)
	c.String(http.StatusForbidden, "Refused: %s.\n", reason)
	c.Abort()
}
