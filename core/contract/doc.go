// Package contract defines TaskContractV1, the immutable task description a supervisor hands the
// worker: strict decoding that reports every problem with its JSON path, path normalisation,
// glob matching of the write and forbidden scopes, the canonical JSON whose sha256 is the
// contract_hash shared with the earlier bridge, and the worker prompt built from a contract.
//
// The package is pure apart from ApplyPathBase, which resolves real paths.
package contract
