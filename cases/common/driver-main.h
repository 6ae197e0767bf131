/*
 * The command loop every function-level driver shares (cases/common/driver-main.c).
 *
 * A driver defines drv_command and is compiled with driver-main.c, which reads
 * standard input one line at a time, splits each line at spaces, tabs and
 * carriage returns, skips empty lines and comments (a first token starting
 * with '#'), echoes the tokens after "> ", and calls drv_command with them.
 */

#ifndef DRIVER_MAIN_H
#define DRIVER_MAIN_H

/* Answers one command: tok[0] is its name, tok[1..ntok-1] its arguments. */
void drv_command(char **tok, int ntok);

/* Parses a whole token as a (decimal) int within +-1000000; 1 on success. */
int drv_parse_int(const char *s, int *value);

#endif
