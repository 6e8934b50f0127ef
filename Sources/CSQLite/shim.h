#ifndef URNA_CSQLITE_SHIM_H
#define URNA_CSQLITE_SHIM_H
#include <sqlite3.h>

/// sqlite3_config is variadic: Swift cannot call it directly.
static inline int urna_sqlite3_config_single_thread(void) { return sqlite3_config(SQLITE_CONFIG_MULTITHREAD); }

/// sqlite3_db_config is variadic: switch defensive mode on or off.
static inline int urna_sqlite3_db_config_defensive(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
}
#endif
