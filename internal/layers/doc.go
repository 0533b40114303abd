// Package layers writes down, once, the order Zimmer's packages are layered in, and its test
// fails when an import runs against it: a package other than graph importing the Neo4j driver,
// a package other than orchestrator (and the wiring and test helpers) importing graph, or any
// import from a lower layer to a higher one. It has no code; the rule is the test.
package layers
