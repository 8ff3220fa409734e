// Package redact removes secrets from text and JSON values, scans file contents for secrets, and
// knows which repository paths hold credentials, Git control data or runtime metadata.
//
// Everything here is pure: no I/O except ScanFile, which only reads the file it is given.
package redact
