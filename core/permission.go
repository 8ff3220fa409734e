package core

// DenialLoopLimit is the identical denial that pauses the task: the worker was told twice.
const DenialLoopLimit = 3
