// Included by reload_value.comp: the hot-reload test edits this constant to
// prove that a change to an included file rebuilds the including program.
#define RELOAD_VALUE 1u
