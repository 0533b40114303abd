// Package devtools holds the tests of the dev scripts next to it (make up, make test, the store
// launchers); the scripts themselves are bash.
package devtools
