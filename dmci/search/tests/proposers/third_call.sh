#!/bin/sh
# A scripted external proposer for search_cli_test: it keeps each prompt it reads (prompt-N.json, in the working
# directory) and proposes nothing until its third call, where it proposes the right structure with rough constants.
n=$(($(cat calls 2>/dev/null || echo 0) + 1))
echo "$n" >calls
cat >"prompt-$n.json"
if [ "$n" -eq 3 ]; then
  echo '["(* 2.1 (exp (* -0.29 t)) (cos (* 1.68 t)))"]'
else
  echo '[]'
fi
