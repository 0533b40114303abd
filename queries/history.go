package queries

import _ "embed" // the statements below are embedded strings

// The statements of the lineage's history: retired uncle edges and the walk as of a time.

// RetireUncleEdge keeps a removed uncle edge as a former one.
//
//go:embed retire_uncle_edge.cypher
var RetireUncleEdge string

// AsOfSpawnChain reads a spawn chain as it stood at a time.
//
//go:embed as_of_spawn_chain.cypher
var AsOfSpawnChain string

// AsOfSeniors reads the seniors of a frontier at a time.
//
//go:embed as_of_seniors.cypher
var AsOfSeniors string

// AsOfJuniors reads the juniors of a frontier at a time.
//
//go:embed as_of_juniors.cypher
var AsOfJuniors string

// AsOfNodes reads walk nodes as they stood at a time.
//
//go:embed as_of_nodes.cypher
var AsOfNodes string
