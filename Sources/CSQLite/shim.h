#ifndef URNA_CSQLITE_SHIM_H
#define URNA_CSQLITE_SHIM_H
#include <sqlite3.h>

/// sqlite3_config is variadic: Swift cannot call it directly. Turns off SQLite's memory statistics
/// (a global mutex on every allocation); must run before the first connection opens.
static inline int urna_sqlite3_config_no_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

/// sqlite3_db_config is variadic: switch defensive mode on or off.
static inline int urna_sqlite3_db_config_defensive(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
}
/// sqlite3_db_config is variadic: switch the double-quoted string literal misfeature for DML on or off.
/// With it on, `SELECT "gone" FROM t` answers the text 'gone' when t has no column "gone".
static inline int urna_sqlite3_db_config_dqs_dml(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, on, (int *)0);
}
/// sqlite3_db_config is variadic: switch the two-argument `fts3_tokenizer(name, pointer)` on or off. Debian's
/// SQLite enables it; with it, `SELECT fts3_tokenizer('simple')` prints a memory address, and the two-argument
/// form installs a tokenizer from a pointer given as a blob.
static inline int urna_sqlite3_db_config_fts3_tokenizer(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, on, (int *)0);
}
#endif
