// Package mockllm is a scripted, OpenAI-compatible chat-completions provider on 127.0.0.1, so the
// real Reasonix worker (and anything else that speaks the Chat Completions API) can be driven
// offline and deterministically. A Script maps a `SCENARIO:name` token in the latest user message
// to a list of model rounds; the round is chosen by how many assistant messages follow that user
// message. Every request, the decision taken and whether the client hung up early are recorded.
package mockllm
