package flags

var օո = true
