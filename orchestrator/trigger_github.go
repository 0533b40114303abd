package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/githubapi"
	"github.com/zimmerhq/zimmer/trigger"
)

// IssueLister reads a repository's open issues and pull requests (githubapi.Client; a test's
// stand-in server behind it).
type IssueLister interface {
	OpenIssues(ctx context.Context, repo, label string) ([]githubapi.Issue, error)
}

// githubMatch is one issue a condition fires for, under a key that names the issue: the graph
// keeps one mark per key, so however many pollers look, each issue fires its condition once.
type githubMatch struct {
	key  string
	vars map[string]string
}

// maxIssueText bounds the issue body a fire's {{text}} carries.
const maxIssueText = 2000

// PollGitHub polls every enabled github_label and github_issue condition (the pollers lane,
// every minute) and fires each new match once. A condition's first poll only baselines: what is
// already labelled or open when it is created does not fire. It reports how many fires it made.
func (s *Service) PollGitHub(ctx context.Context, gh IssueLister, scope SweepScope) (int, error) {
	fired := 0
	var errs []error
	for _, typ := range []trigger.Type{trigger.TypeGitHubLabel, trigger.TypeGitHubIssue} {
		list, err := s.store.EnabledTriggersOfType(ctx, typ)
		if err != nil {
			return fired, err
		}
		for _, t := range list {
			if scope.Text != "" && !strings.Contains(t.PromptTemplate, scope.Text) {
				continue
			}
			for _, c := range t.Conditions {
				if c.Type != typ {
					continue
				}
				n, err := s.pollCondition(ctx, gh, t, c)
				fired += n
				errs = append(errs, err)
			}
		}
	}
	return fired, errors.Join(errs...)
}

func (s *Service) pollCondition(ctx context.Context, gh IssueLister, t *trigger.Trigger, c trigger.Condition) (int, error) {
	matches, err := githubMatches(ctx, gh, c)
	if err != nil {
		return 0, fmt.Errorf("poll condition %d of trigger %d: %w", c.ID, t.ID, err)
	}
	fired := 0
	if c.LastPolledAt == nil {
		keys := make([]string, len(matches))
		for i, m := range matches {
			keys[i] = m.key
		}
		if err := s.store.ClaimFireKeys(ctx, t.ID, keys); err != nil {
			return 0, err
		}
	} else {
		var errs []error
		for _, m := range matches {
			res, err := s.fire(ctx, fireRequest{triggerID: t.ID, conditionID: c.ID, key: m.key, vars: m.vars})
			errs = append(errs, err)
			if err == nil && res.Outcome != FireSkipped {
				fired++
			}
		}
		if err := errors.Join(errs...); err != nil {
			return fired, err
		}
	}
	now := s.now().UTC()
	_, err = s.store.UpdateTrigger(ctx, t.ID, func(u *trigger.Trigger) error {
		if cond, ok := u.Condition(c.ID); ok {
			cond.LastPolledAt = &now
		}
		return nil
	})
	return fired, err
}

// githubMatches lists what a condition fires for now: issues or pull requests carrying one of
// its labels (github_label), or open issues without an excluded label (github_issue).
func githubMatches(ctx context.Context, gh IssueLister, c trigger.Condition) ([]githubMatch, error) {
	var out []githubMatch
	seen := map[string]bool{}
	add := func(repo string, i githubapi.Issue, event string) {
		key := fmt.Sprintf("%s:%d:%s#%d", c.Type, c.ID, strings.ToLower(repo), i.Number)
		if seen[key] {
			return
		}
		seen[key] = true
		text := i.Body
		if r := []rune(text); len(r) > maxIssueText {
			text = string(r[:maxIssueText]) + "…"
		}
		out = append(out, githubMatch{key: key, vars: map[string]string{"link": i.HTMLURL, "repo": repo, "number": fmt.Sprint(i.Number),
			"title": i.Title, "labels": strings.Join(i.LabelNames(), ", "), "event": event, "author": i.User.Login, "text": text}})
	}
	for _, repo := range c.Strings("repos") {
		if c.Type == trigger.TypeGitHubLabel {
			wantPR := c.Str("target") != "issue"
			for _, label := range c.Strings("labels") {
				list, err := gh.OpenIssues(ctx, repo, label)
				if err != nil {
					return nil, err
				}
				for _, i := range list {
					if i.IsPullRequest() == wantPR && hasLabel(i, label) {
						add(repo, i, "labeled")
					}
				}
			}
			continue
		}
		list, err := gh.OpenIssues(ctx, repo, "")
		if err != nil {
			return nil, err
		}
		for _, i := range list {
			if !i.IsPullRequest() && !slices.ContainsFunc(c.Strings("exclude_labels"), func(l string) bool { return hasLabel(i, l) }) {
				add(repo, i, "opened")
			}
		}
	}
	return out, nil
}

func hasLabel(i githubapi.Issue, label string) bool {
	return slices.ContainsFunc(i.LabelNames(), func(n string) bool { return strings.EqualFold(n, label) })
}
