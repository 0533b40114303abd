// Package githubapi is the little of the GitHub REST API the trigger pollers read: a
// repository's open issues and pull requests, by label or newest first. The token travels in a
// header only; no error, log line or value this package returns carries it.
package githubapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client reads from one GitHub API base URL with one token ("" sends none).
type Client struct {
	base  string
	token string
	http  *http.Client
}

// New builds a client for base (https://api.github.com, or a GitHub Enterprise / test stand-in).
func New(base, token string) *Client {
	return &Client{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{Timeout: 15 * time.Second}}
}

// Issue is an issue or a pull request as the issues endpoint lists it.
type Issue struct {
	Number  int64  `json:"number"`
	Title   string `json:"title"`
	HTMLURL string `json:"html_url"`
	Body    string `json:"body"`
	User    struct {
		Login string `json:"login"`
	} `json:"user"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	PullRequest *json.RawMessage `json:"pull_request"`
	CreatedAt   time.Time        `json:"created_at"`
}

// IsPullRequest: the issues endpoint lists pull requests too, marked by this key.
func (i Issue) IsPullRequest() bool { return i.PullRequest != nil }

// LabelNames are the issue's labels.
func (i Issue) LabelNames() []string {
	out := make([]string, len(i.Labels))
	for n, l := range i.Labels {
		out[n] = l.Name
	}
	return out
}

// maxBody bounds one listing's response.
const maxBody = 8 << 20

// OpenIssues lists a repository's open issues and pull requests, newest first (up to 100); with
// a label, only those carrying it.
func (c *Client) OpenIssues(ctx context.Context, repo, label string) ([]Issue, error) {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok {
		return nil, fmt.Errorf("repository %q is not owner/name", repo)
	}
	q := url.Values{"state": {"open"}, "sort": {"created"}, "direction": {"desc"}, "per_page": {"100"}}
	if label != "" {
		q.Set("labels", label)
	}
	endpoint := fmt.Sprintf("%s/repos/%s/%s/issues?%s", c.base, url.PathEscape(owner), url.PathEscape(name), q.Encode())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("list issues of %s: %w", repo, err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list issues of %s: %w", repo, scrub(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list issues of %s: GitHub answered %s", repo, resp.Status)
	}
	var out []Issue
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&out); err != nil {
		return nil, fmt.Errorf("list issues of %s: decode: %w", repo, err)
	}
	return out, nil
}

// scrub keeps a transport error's reason and drops the URL it quotes (which could carry
// credentials a base URL was given with).
func scrub(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}
