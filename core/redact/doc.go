// Package redact removes secrets from text and JSON values and knows which paths hold credentials.
package redact
