// Package jobs defines Zimmer's background work on Asynq: task types with typed payloads, the
// queue client the API enqueues through, and the worker that serves each lane.
package jobs
