// Package deploy holds the Docker deployment files (compose, Prometheus, Grafana) and the test that keeps them consistent with the code.
package deploy
