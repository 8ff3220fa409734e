// Package doctor checks a machine for what reasonixctl needs before a first run: the platform,
// git, a worker that answers ACP as Reasonix does and its provider, bubblewrap, the state
// directory and its owner, the repository's toolchains and the Codex configuration. It reads and
// reports; it changes nothing and depends on no engine.
package doctor
