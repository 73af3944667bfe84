#!/usr/bin/env bash
# Validates corpus/manifest.json against the dmci tool, pair by pair:
#  - the program file exists and every listed route runs without error;
#  - the value is a number or a tensor, and every route agrees with direct
#    (value rel. 1e-12, gradient rel. 1e-10 per component, keys identical);
#  - the bindings are exactly the program's free variables (dropping any one
#    gives unbound-variable);
#  - closed_form / closed_value agree with direct to rel. 1e-9
#    (relative = |a-b| / max(|b|, 1e-8));
#  - the direct run takes < 50 ms wall time (process start included).
# Usage: corpus/tools/validate.sh [path/to/dmci] [name-filter-regex]
# Prints one line per problem and a summary; exits non-zero on any problem.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
dmci=$(realpath "${1:-$here/../build-corpus/dmci}")
filter=${2:-.}
cd "$here" || exit 2
manifest=manifest.json
n=$(jq '.pairs | length' $manifest)
fail=0; checked=0; exact=0; slow=0
for ((i = 0; i < n; i++)); do
  pair=$(jq -c ".pairs[$i]" $manifest)
  name=$(jq -r .name <<<"$pair")
  [[ $name =~ $filter ]] || continue
  checked=$((checked + 1))
  file=$(jq -r .file <<<"$pair")
  if [[ ! -f $file ]]; then echo "FAIL $name: missing file $file"; fail=$((fail + 1)); continue; fi
  mapfile -t binds < <(jq -r '.bind | to_entries[] | "\(.key)=\(.value)"' <<<"$pair")
  bargs=(); for b in "${binds[@]}"; do bargs+=(--bind "$b"); done
  wrt=$(jq -r '[.wrt[]] + (if .literals then ["literals"] else [] end) | join(",")' <<<"$pair")
  mapfile -t routes < <(jq -r '(.routes // ["direct","dmci"])[]' <<<"$pair")
  declare -A out=()
  t0=$(date +%s%N)
  out[direct]=$("$dmci" grad "$file" "${bargs[@]}" --wrt "$wrt" --json --via direct 2>&1)
  t1=$(date +%s%N)
  ms=$(((t1 - t0) / 1000000))
  if ((ms >= 50)); then echo "SLOW $name: direct ${ms} ms"; slow=$((slow + 1)); fi
  for r in "${routes[@]}"; do
    [[ $r == direct ]] && continue
    out[$r]=$("$dmci" grad "$file" "${bargs[@]}" --wrt "$wrt" --json --via "$r" 2>&1)
  done
  problems=""
  for r in "${routes[@]}"; do
    if ! jq -e 'type == "object"' >/dev/null 2>&1 <<<"${out[$r]}"; then
      problems+="$r: not JSON: ${out[$r]:0:200}; "; continue
    fi
    if [[ $r != direct ]] && ! jq -e '.error | not' >/dev/null 2>&1 <<<"${out[direct]}"; then
      problems+="$r: not compared (direct failed); "; continue
    fi
    p=$(jq -rn --argjson pair "$pair" --arg r "$r" --argjson D "${out[direct]}" --argjson O "${out[$r]}" '
      def rel(a; b): if a == null and b == null then 0 elif a == null or b == null then 1e300
                     else ((a - b) | fabs) / ([(b | fabs), 1e-8] | max) end;
      def vals(v): if (v | type) == "number" then [v] else v.data end;
      if $O.error then "\($r): error \($O.error | tostring)"
        elif (($O.value | type) != "number") and (($O.value | type) != "object") then "\($r): value is not a number or tensor"
        elif $r == "direct" then
          ( [ ($pair.closed_form // {} | to_entries[]
               | . as $e | if ($D.gradient | has($e.key) | not) then "closed_form key \(.key) not in gradient"
                 elif rel($D.gradient[.key]; .value) > 1e-9 then "closed_form \(.key): tool \($D.gradient[.key]) vs \(.value)"
                 else empty end),
              (if $pair.closed_value != null and rel($D.value; $pair.closed_value) > 1e-9
               then "closed_value: tool \($D.value) vs \($pair.closed_value)" else empty end) ] | join("; ") )
        else
          ( [ (if (vals($O.value) | length) != (vals($D.value) | length) then "\($r): value shape differs"
               else [vals($O.value), vals($D.value)] | transpose[] | select(rel(.[0]; .[1]) > 1e-12)
                    | "\($r): value \(.[0]) vs direct \(.[1])" end),
              (if ($O.gradient | keys) != ($D.gradient | keys) then "\($r): gradient keys differ" else empty end),
              ($D.gradient | to_entries[] | select(rel($O.gradient[.key]; .value) > 1e-10)
               | "\($r): d/d\(.key) \($O.gradient[.key]) vs direct \(.value)") ] | join("; ") )
        end') || p="$r: validator error (jq)"
    [[ -n $p ]] && problems+="$p; "
  done
  same=1
  for r in "${routes[@]}"; do [[ ${out[$r]} == "${out[direct]}" ]] || same=0; done
  ((same)) && exact=$((exact + 1))
  for b in "${binds[@]}"; do
    key=${b%%=*}
    rest=(); for c in "${binds[@]}"; do [[ $c == "$b" ]] || rest+=(--bind "$c"); done
    o=$("$dmci" grad "$file" "${rest[@]}" --wrt literals --json --via direct 2>&1)
    jq -e --arg k "$key" '.error.kind == "unbound-variable" and (.error.message | endswith(": " + $k))' <<<"$o" >/dev/null 2>&1 ||
      problems+="binding $key is not needed (dropping it gives: ${o:0:120}); "
  done
  if [[ -n $problems ]]; then echo "FAIL $name: $problems"; fail=$((fail + 1)); fi
  unset out
done
echo "checked $checked pairs: $((checked - fail)) ok, $fail failed; $exact bit-identical across routes; $slow slow (>= 50 ms direct)"
((fail == 0))
