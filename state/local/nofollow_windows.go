package local

// oNoFollow is zero on Windows, which has no such open flag: the Lstat
// before each open is what refuses a journal that is a link there.
const oNoFollow = 0
