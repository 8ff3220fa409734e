// Package core is the task engine both front ends share: delegate, supervise, review and
// finalize a worker's task through the Service interface.
package core
