// Package slack is Slack's Events API endpoint, POST /slack/events: a signed request proves the
// message came from Slack, and the roster's Slack user ids (never the text, never a trigger's
// allowed users) say which human, if any, wrote it. A message in a thread a session is bound to
// is delivered to that session as a follow-up; it is recorded as a human message only when its
// sender maps to a roster row.
package slack

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
)

// Path is where Slack posts events.
const Path = "/slack/events"

// MaxSkew is how old (or how far ahead) a request's timestamp may be: Slack's own guidance,
// and what makes a captured request useless for a replay later.
const MaxSkew = 5 * time.Minute

// maxBody bounds an event body; Slack's are a few kilobytes.
const maxBody = 1 << 20

// bodyBudget is how long the body may take to arrive: Slack sends a few kilobytes at once, and a
// client that trickles one holds a connection for nothing.
const bodyBudget = 2 * time.Second

// deliveryBudget keeps the answer inside Slack's 3-second window, after which it retries.
const deliveryBudget = 2500 * time.Millisecond

// Handler serves the endpoint.
type Handler struct {
	ops    *orchestrator.Service
	log    *slog.Logger
	secret []byte
	now    func() time.Time
}

// New builds the handler; an empty signing secret leaves Slack unconfigured (503).
func New(ops *orchestrator.Service, log *slog.Logger, signingSecret string, now func() time.Time) *Handler {
	if now == nil {
		now = time.Now
	}
	return &Handler{ops: ops, log: log, secret: []byte(signingSecret), now: now}
}

// Mount installs POST /slack/events on r.
func Mount(r gin.IRoutes, h *Handler) { r.POST(Path, h.events) }

func (h *Handler) events(c *gin.Context) {
	if len(h.secret) == 0 {
		c.JSON(http.StatusServiceUnavailable, gin.H{"error": "Service Unavailable", "message": "Slack is not configured: set SLACK_SIGNING_SECRET to this app's signing secret"})
		return
	}
	body, err := readBody(c)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		c.JSON(http.StatusRequestEntityTooLarge, gin.H{"error": "Payload Too Large", "message": "event body too large"})
		return
	case err != nil:
		h.log.Warn("Slack request refused", "reason", "body not received in time", "err", err)
		c.JSON(http.StatusRequestTimeout, gin.H{"error": "Request Timeout", "message": "the event body did not arrive in time"})
		return
	}
	if why := h.verify(c.Request.Header, body); why != "" {
		h.log.Warn("Slack request refused", "reason", why)
		c.JSON(http.StatusUnauthorized, gin.H{"error": "Unauthorized", "message": why})
		return
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"error": "Bad Request", "message": "event body is not JSON"})
		return
	}
	switch env.Type {
	case "url_verification":
		c.JSON(http.StatusOK, gin.H{"challenge": env.Challenge})
	case "event_callback":
		h.callback(c, env)
	default:
		c.Status(http.StatusOK) // event kinds Zimmer does not use are acknowledged and dropped
	}
}

// readBody reads the request body under maxBody and bodyBudget.
func readBody(c *gin.Context) ([]byte, error) {
	if err := http.NewResponseController(c.Writer).SetReadDeadline(time.Now().Add(bodyBudget)); err != nil {
		return nil, fmt.Errorf("set the body's read deadline: %w", err)
	}
	return io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxBody))
}

// verify checks Slack's signature: v0= HMAC-SHA256 of "v0:{timestamp}:{body}" under the
// signing secret, compared in constant time, on a timestamp within MaxSkew of now. It returns
// why the request is refused, or "".
func (h *Handler) verify(hdr http.Header, body []byte) string {
	raw := hdr.Get("X-Slack-Request-Timestamp")
	ts, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return "missing or malformed X-Slack-Request-Timestamp"
	}
	if skew := h.now().Sub(time.Unix(ts, 0)); skew > MaxSkew || skew < -MaxSkew {
		return "request timestamp is more than 5 minutes from now"
	}
	mac := hmac.New(sha256.New, h.secret)
	mac.Write([]byte("v0:" + raw + ":"))
	mac.Write(body)
	want := "v0=" + hex.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(want), []byte(hdr.Get("X-Slack-Signature"))) {
		return "signature does not match"
	}
	return ""
}

// Sign is the X-Slack-Signature of body at timestamp under secret: what Slack sends (tests use it).
func Sign(secret string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + strconv.FormatInt(timestamp, 10) + ":"))
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

type envelope struct {
	Type      string `json:"type"`
	Challenge string `json:"challenge"`
	EventID   string `json:"event_id"`
	Event     event  `json:"event"`
}

type event struct {
	Type        string `json:"type"`
	Subtype     string `json:"subtype"`
	BotID       string `json:"bot_id"`
	User        string `json:"user"`
	Text        string `json:"text"`
	Channel     string `json:"channel"`
	ChannelType string `json:"channel_type"`
	TS          string `json:"ts"`
	ThreadTS    string `json:"thread_ts"`
}

// callback handles one event. Only plain human messages count: bot posts and every subtype
// (edits, deletions, joins, bot_message …) are acknowledged and dropped, so neither an edit
// nor a bot can put words in a session. A retry (X-Slack-Retry-Num) or a replay carries the
// event_id of the first attempt, and the delivery is deduplicated on it.
func (h *Handler) callback(c *gin.Context, env envelope) {
	e := env.Event
	mention := e.Type == "app_mention"
	if (e.Type != "message" && !mention) || e.Subtype != "" || e.BotID != "" || e.User == "" || e.Channel == "" {
		c.Status(http.StatusOK)
		return
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), deliveryBudget)
	defer cancel()
	msg := orchestrator.SlackMessage{EventID: env.EventID, UserID: e.User, Channel: e.Channel,
		ChannelType: e.ChannelType, TS: e.TS, ThreadTS: e.ThreadTS, Text: e.Text}
	// Slack triggers hear messages and mentions; a retried event queues no fire twice.
	if _, err := h.ops.FireSlackTriggers(ctx, msg, mention); err != nil {
		_ = c.Error(err)
		c.JSON(http.StatusInternalServerError, gin.H{"error": "Internal Server Error", "message": "the event could not be handled; the error was logged"})
		return
	}
	if mention { // the same words arrive as a message event too: that one is delivered
		c.Status(http.StatusOK)
		return
	}
	out, _, err := h.ops.DeliverSlackMessage(ctx, msg)
	var ve *orchestrator.ValidationError
	switch {
	case errors.As(err, &ve):
		// The session cannot take it (archived, failed, blank text): Slack can do nothing about
		// that, so acknowledge rather than invite retries.
		h.log.Warn("Slack message not delivered", "event_id", env.EventID, "channel", e.Channel, "err", err)
	case err != nil:
		_ = c.Error(err)
		c.JSON(http.StatusInternalServerError, gin.H{"error": "Internal Server Error", "message": "the event could not be delivered; the error was logged"})
		return
	default:
		h.log.Info("Slack message handled", "event_id", env.EventID, "retry", c.GetHeader("X-Slack-Retry-Num"),
			"channel", e.Channel, "outcome", string(out))
	}
	c.Status(http.StatusOK)
}
