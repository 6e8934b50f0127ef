#ifndef URNA_CPOSTGRESQL_SHIM_H
#define URNA_CPOSTGRESQL_SHIM_H
#include <libpq-fe.h>

// PG_DIAG_* are character-literal macros, which Swift does not import: give them typed names.
static const int urna_pg_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int urna_pg_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;
static const int urna_pg_diag_message_detail = PG_DIAG_MESSAGE_DETAIL;
static const int urna_pg_diag_message_hint = PG_DIAG_MESSAGE_HINT;
static const int urna_pg_diag_statement_position = PG_DIAG_STATEMENT_POSITION;

// Notices ("table does not exist, skipping") would go to stderr: urna reports what matters itself.
static void urna_pg_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }
static inline void urna_pg_silence_notices(PGconn *conn) {
    PQsetNoticeProcessor(conn, urna_pg_ignore_notice, NULL);
}
#endif
