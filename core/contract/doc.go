// Package contract defines TaskContractV1: strict decoding, path normalisation, lint and the
// canonical hash shared with the earlier bridge.
package contract
