#!/usr/bin/env python3
"""An external proposer for `dmci search` that asks any OpenAI-compatible chat-completions endpoint.

`dmci search --proposer 'python3 examples/proposers/openai_proposer.py'` runs this script once per asked
generation. It reads the search's JSON prompt on standard input (the task, the variables and parameters, the
operators, a summary of the data, the best programs with their held-out RMSE and complexity, and the recent
failures with their error messages), sends it to the endpoint, and writes the model's programs on standard output
as a JSON array of strings. Anything that goes wrong is said on standard error with a non-zero exit: the search
reports it and goes on with its built-in proposer. Python's standard library only.

Environment:
  DMCI_LLM_URL    the endpoint's base URL, e.g. http://localhost:11434/v1 for a local server, or your provider's (required)
  DMCI_LLM_MODEL  the model's name (required)
  DMCI_LLM_KEY    the API key, sent as a bearer token (optional: local servers need none)
  DMCI_LLM_TEMPERATURE  sampling temperature (default 0.7)
  DMCI_LLM_TIMEOUT      seconds to wait for the answer (default 60; keep it below --proposer-timeout)
"""
import json
import os
import re
import sys
import urllib.error
import urllib.request

SYSTEM = """You propose candidate programs for symbolic regression in a small Scheme.
A program is ONE Scheme expression over the given variables and parameters, using only the given operators
(each used as (op a b) or (op a); + and * may take more operands) and decimal numbers.
Numbers and parameters are fitted to the data before scoring, so choose structure, not constants.
Learn from the best programs and from the failures' error messages; do not repeat a failure.
Answer with a JSON array of program strings and nothing else."""


def fail(message):
    print(f"openai_proposer: {message}", file=sys.stderr)
    sys.exit(1)


def user_message(prompt):
    lines = [prompt.get("task", ""), "",
             f"Variables: {', '.join(prompt.get('variables', []))}",
             f"Parameters: {', '.join(prompt.get('parameters', [])) or 'none'}",
             f"Operators: {' '.join(prompt.get('operators', []))}",
             f"Data: {json.dumps(prompt.get('data', {}))}", "", "Best programs so far:"]
    for b in prompt.get("best", []):
        lines.append(f"  held-out RMSE {b.get('holdout_rmse')}, complexity {b.get('complexity')}: "
                     f"{b.get('program', '').strip()}")
    failures = prompt.get("failures", [])
    if failures:
        lines += ["", "Recent failures:"]
        lines += [f"  {f.get('program', '').strip() or '(the reply)'} -> {f.get('error')}" for f in failures]
    lines += ["", f"Propose {prompt.get('want', 8)} new, different programs as a JSON array of strings."]
    return "\n".join(lines)


def programs_in(text):
    """The JSON array in the model's answer (it may wrap it in prose or a code fence)."""
    match = re.search(r"\[.*\]", text, re.S)
    if not match:
        fail(f"the model's answer holds no JSON array: {text[:200]!r}")
    try:
        items = json.loads(match.group(0))
    except json.JSONDecodeError as e:
        fail(f"the model's array is not JSON ({e}): {match.group(0)[:200]!r}")
    return [p for p in items if isinstance(p, str)]


def main():
    url, model = os.environ.get("DMCI_LLM_URL"), os.environ.get("DMCI_LLM_MODEL")
    if not url or not model:
        fail("set DMCI_LLM_URL (an OpenAI-compatible base URL) and DMCI_LLM_MODEL")
    try:
        prompt = json.load(sys.stdin)
    except json.JSONDecodeError as e:
        fail(f"the prompt on standard input is not JSON: {e}")
    body = {"model": model, "temperature": float(os.environ.get("DMCI_LLM_TEMPERATURE", "0.7")),
            "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user_message(prompt)}]}
    headers = {"Content-Type": "application/json"}
    if os.environ.get("DMCI_LLM_KEY"):
        headers["Authorization"] = "Bearer " + os.environ["DMCI_LLM_KEY"]
    request = urllib.request.Request(url.rstrip("/") + "/chat/completions", data=json.dumps(body).encode(),
                                     headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=float(os.environ.get("DMCI_LLM_TIMEOUT", "60"))) as reply:
            answer = json.load(reply)
    except urllib.error.HTTPError as e:
        fail(f"the endpoint answered {e.code}: {e.read()[:300]!r}")
    except (urllib.error.URLError, TimeoutError, OSError) as e:
        fail(f"cannot reach {url}: {e}")
    try:
        text = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        fail(f"unexpected answer: {json.dumps(answer)[:300]}")
    json.dump(programs_in(text), sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
