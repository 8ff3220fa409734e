// Package bind is the dashboard's keys: the key map, which names every key once with its help,
// and the binding table, whose entries say what a key does and why it does nothing now. A part
// of the dashboard dispatches its keys, draws its footer and lists its help from its one table,
// so the three cannot disagree.
package bind
