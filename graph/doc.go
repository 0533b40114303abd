// Package graph is Zimmer's system of record: it reads and writes sessions and their lineage in
// Neo4j, one transaction per domain operation. It is the only package that imports the driver.
package graph
