// Package mockllm is a scripted model provider on 127.0.0.1, so real coding agents — the Reasonix
// worker, and the published ACP agents Claude Code (claude-agent-acp), Codex (codex-acp), Gemini
// CLI, Qwen Code and opencode — can be driven offline and deterministically.
//
// One Server speaks, on one listener, each API those agents use (see Dialect): OpenAI Chat
// Completions, OpenAI Responses, Anthropic Messages and Gemini generateContent, streamed or not,
// plus what their clients call around the model (Anthropic's count_tokens, Gemini's countTokens,
// model listings, the probe of "/"). Every dialect's history is read into the same neutral
// Messages, and every answer comes from the same Script.
//
// A Script maps a `SCENARIO:name` token in the latest user message to a list of model rounds;
// the round is chosen by how many model rounds (assistant messages) follow that user message.
// A round is dialect-neutral — reasoning, text, tool calls by name with JSON arguments — and each
// dialect frames it. Tool names are not translated: a script is written for one agent, in that
// agent's tool names ("Write" and "Bash" for Claude, "apply_patch" and "exec_command" for Codex,
// "write_file" and "run_shell_command" for Gemini CLI and Qwen Code, "write" and "bash" for
// opencode), because each agent's tools take arguments of their own shape anyway. Requests that
// offer no tools are the agents' side calls (titles, routing and next-speaker checks); a script
// for a published agent answers them with Script.Aside and Script.AsideJSON (see WithAsides).
//
// Every request, its dialect, the decision taken and whether the client hung up early are
// recorded. The Write*Home functions write each agent's private home pointed at a Server and
// return the environment to start the agent with.
package mockllm
