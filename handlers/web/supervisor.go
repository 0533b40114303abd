package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/zimmerhq/zimmer/orchestrator"
	"github.com/zimmerhq/zimmer/roster"
)

// The supervisor's roster page. It is the only place the users roster is edited: the roster
// is the authority on who counts as a human, so an agent (REST, MCP) that could edit it could
// manufacture the human authorship the record exists to make unforgeable.

type usersPage struct {
	Users    []userRow
	AdminKey string
	Admin    bool // the admin key names a row
	Form     roster.User
	Errors   []string
	Notice   string
}

type userRow struct {
	roster.User
	SlackIDs string // the ids as the form edits them
	IsAdmin  bool
}

var userNotices = map[string]string{"saved": "Saved.", "deleted": "Deleted."}

func (h *Handler) listUsers(c *gin.Context) {
	h.renderUsers(c, http.StatusOK, roster.User{}, nil, userNotices[c.Query("notice")])
}

func (h *Handler) renderUsers(c *gin.Context, status int, form roster.User, problems []string, notice string) {
	users, err := h.ops.Users(c.Request.Context())
	if err != nil {
		h.fail(c, err)
		return
	}
	p := usersPage{AdminKey: h.ops.AdminKey(), Form: form, Errors: problems, Notice: notice}
	for _, u := range users {
		row := userRow{User: u, SlackIDs: strings.Join(u.SlackUserIDs, ", "), IsAdmin: u.Key == p.AdminKey}
		p.Admin = p.Admin || row.IsAdmin
		p.Users = append(p.Users, row)
	}
	h.render(c, status, "users.html", "Users", p)
}

// saveUser creates or updates the row named by the form's key.
func (h *Handler) saveUser(c *gin.Context) {
	u := roster.User{Key: c.PostForm("key"), DisplayName: c.PostForm("display_name"), Email: c.PostForm("email"),
		SlackUserIDs: splitIDs(c.PostForm("slack_user_ids")), Notes: c.PostForm("notes")}
	err := h.ops.SaveUser(c.Request.Context(), u)
	var ve *orchestrator.ValidationError
	switch {
	case errors.As(err, &ve):
		h.renderUsers(c, http.StatusUnprocessableEntity, u, ve.Messages, "")
	case err != nil:
		h.fail(c, err)
	default:
		c.Redirect(http.StatusSeeOther, "/supervisor/users?notice=saved")
	}
}

func (h *Handler) deleteUser(c *gin.Context) {
	err := h.ops.DeleteUser(c.Request.Context(), c.Param("key"))
	switch {
	case errors.Is(err, orchestrator.ErrNotFound):
		h.renderUsers(c, http.StatusNotFound, roster.User{}, []string{"No user with key " + c.Param("key")}, "")
	case err != nil:
		h.fail(c, err)
	default:
		c.Redirect(http.StatusSeeOther, "/supervisor/users?notice=deleted")
	}
}

// splitIDs reads Slack user ids separated by commas or whitespace; the roster normalises them.
func splitIDs(raw string) []string {
	return strings.FieldsFunc(raw, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
}
