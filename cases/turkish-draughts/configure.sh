#!/bin/sh
# Turkish draughts driver configuration: `configure.sh BUILD SOURCE...`.
#
# Joins the student's .c files into BUILD/student-source.c (driver.c includes it) and finds what the
# file names, writing BUILD/drv-config.h: the element type of the board and the type of the player
# that init_board() and move() take, and whether the handout's enum constants (white_man ... empty,
# white, black) exist. A student who replaced the enum with characters still gets a driver that
# compiles; driver.c learns the values at run time. Each question is a `gcc -fsyntax-only` probe, as
# autoconf asks them.
set -u
build=$1
shift
# `#line` keeps the compiler's messages naming the student's own files and lines.
for file in "$@"; do
    printf '#line 1 "%s"\n' "$(basename "$file")"
    cat "$file"
    printf '\n'
done > "$build/student-source.c"

# Whether a snippet compiles after the student's file (with its main renamed, as driver.c does). Only
# the snippet is strict about pointer types: the student's own code compiles as gcc 12 accepts it.
compiles() {
    printf '#define main student_main\n#include "student-source.c"\n#undef main\n#pragma GCC diagnostic error "-Wincompatible-pointer-types"\nstatic void drv_probe(void) { %s }\n' \
        "$1" > "$build/drv-probe.c"
    gcc -fsyntax-only -Wno-error=implicit-function-declaration -Wno-error=implicit-int \
        -Wno-error=int-conversion -Wno-error=incompatible-pointer-types \
        -I"$build" "$build/drv-probe.c" >/dev/null 2>&1
}

config="$build/drv-config.h"
{
    echo "/* Written by configure.sh: what the student's file names. */"
    # From the first required function the file declares (a missing one is stood in for).
    cell=
    for type in piece Piece 'enum piece' char int 'unsigned char' 'signed char' short 'unsigned int'; do
        for function in 'void (*f)(T (*)[8]) = init_board' 'void (*f)(T (*)[8]) = display_board' \
            'int (*f)(T (*)[8]) = check_end_of_game'; do
            if compiles "$(echo "$function" | sed "s/T/$type/"); (void)f; (void)sizeof($type);"; then
                cell=$type
                break 2
            fi
        done
    done
    # Nothing matched (init_board missing or an unusual signature): the handout's type, so that gcc
    # says what is wrong in the build log.
    echo "#define DRV_CELL ${cell:-piece}"
    player=
    for type in player Player 'enum player' int char 'unsigned int' short; do
        if compiles "int (*g)(${cell:-piece} (*)[8], int, int, int, int, $type) = move; (void)g; (void)sizeof($type);"; then
            player=$type
            break
        fi
    done
    echo "#define DRV_PLAYER ${player:-player}"
    if compiles "int k[] = {white_man, black_man, white_king, black_king, empty}; (void)k;"; then
        echo "#define DRV_PIECE_ENUM 1"
    else
        echo "#define DRV_PIECE_ENUM 0"
    fi
    if compiles "int k[] = {white, black}; (void)k;"; then
        echo "#define DRV_PLAYER_ENUM 1"
    else
        echo "#define DRV_PLAYER_ENUM 0"
    fi
} > "$config"
rm -f "$build/drv-probe.c"
