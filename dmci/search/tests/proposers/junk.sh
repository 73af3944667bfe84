#!/bin/sh
# A scripted external proposer for search_cli_test that gets everything wrong, one way per call, and keeps each
# prompt it reads (prompt-N.json): call 1 proposes a syntax error, an unbound name, an endless loop and binary
# junk; call 2 prints bytes that are not JSON; call 3 fails with status 3; later calls propose nothing.
n=$(($(cat calls 2>/dev/null || echo 0) + 1))
echo "$n" >calls
cat >"prompt-$n.json"
case "$n" in
  1) echo '["(+ a", "(* k t)", "(let loop () (loop))", "\u0001\u00ff\u00fe)"]' ;;
  2) printf '\001\377\376 not json' ;;
  3) echo "gave up" >&2; exit 3 ;;
  *) echo '[]' ;;
esac
