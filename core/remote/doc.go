// Package remote serves an engine's Service to other reasonixctl processes over the owner's
// Unix socket, and is the client they attach with.
//
// The process that holds a state directory's owner lock is the only one that may open it; it
// calls Serve, which listens on <dir>/owner.sock. Every other process (a second dashboard, the
// task subcommands, the doctor) calls Dial and drives the owner's engine through the returned
// Client, which implements core.Service. The owner lock stays the source of truth: a socket
// file found at start-up while we hold the lock belongs to a dead owner and is replaced.
//
// # Why Connect
//
// The RPC layer is Connect (connectrpc.com/connect) over HTTP/1.1 on the socket, with a small
// encoding/json codec of our own instead of protobuf code generation. Connect gives us, from a
// maintained library with a stable v1 API: typed unary and server-streaming procedures over
// plain net/http (so the socket is an ordinary http.Server whose connections, header limits,
// timeouts and peer checks we control), message size limits on both sides
// (WithReadMaxBytes/WithSendMaxBytes), cancellation that travels with the request context (a
// Delegate that waits ten minutes stops when the caller goes away), and a standard error
// envelope with typed details, which carries core.Error intact. gRPC would need HTTP/2 and
// generated stubs; a JSON-RPC 2.0 library would leave streaming, size limits and cancellation
// to us. The JSON codec means the wire types are core's own Go types (a command travels as its
// kind and its fields and arrives as the same type), so nothing is generated and nothing
// drifts.
//
// # Protocol
//
// Hello is a server stream that lives as long as the client: its first message is the owner's
// Info (or a reasonix_incompatible error when the protocol versions differ), and its end tells
// the client the owner went away. A "dashboard" client counts as an attached supervisor for as
// long as its Hello stream is open. Subscribe is a server stream that starts with a ready frame
// (so a bad task id fails the call itself) and then carries events. A subscriber that falls
// behind is dropped with a lag error and the client resumes from the last seq it saw, so a
// slow or stopped client never slows the owner.
package remote
