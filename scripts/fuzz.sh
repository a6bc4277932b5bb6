#!/usr/bin/env bash
# Fuzzes every reader of foreign bytes with cargo-fuzz (libFuzzer, nightly toolchain): the log
# reader and replay, each importer, frontmatter, `@path` imports, the tool-call id normaliser
# and the provider-answer decoders. Each target runs for FUZZ_SECONDS (default 120), seeded from our fixtures and, when
# it is there, ../shared/corpus. Its corpus, crashes and a log with the final figures land in
# target/fuzz/. `make fuzz` (FUZZ_SECONDS=1200 make fuzz for a long run, FUZZ_TARGETS="log
# import_pi" for some); `make test` runs the same checks (fuzz/checks/) on stable over the seeds
# and fuzz/regressions/ — an input that fails here belongs there.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
SECONDS_EACH=${FUZZ_SECONDS:-120}
TARGETS=${FUZZ_TARGETS:-"log import_claude_code import_codex import_pi import_others frontmatter rule_imports tool_call_ids answer"}
CORPUS=${CONTEXTVIEW_CORPUS:-../shared/corpus}
OUT=target/fuzz

rustup toolchain install nightly --profile minimal >/dev/null 2>&1 || true
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

seed() { # target, files...
  local dir=$OUT/seeds/$1; shift
  mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/$(basename "$f")"; done
  return 0
}
mkdir -p "$OUT"
seed log examples/session.jsonl
seed import_claude_code tests/fixtures/claude-code.jsonl $(ls "$CORPUS"/sessions/*.jsonl 2>/dev/null | grep -v -e codex -e pi-mono || true)
seed import_codex tests/fixtures/codex.jsonl $(ls "$CORPUS"/sessions/*codex*.jsonl 2>/dev/null || true)
seed import_pi tests/fixtures/pi.jsonl $(ls "$CORPUS"/sessions/*pi-mono*.jsonl 2>/dev/null || true)
# The other importers: the first byte picks the format (0 Gemini CLI, 1 Copilot CLI, 2 Aider, 3
# Cline, 4 Roo Code, 5 Kilo Code, 6 OpenCode, 7 OpenCode's storage; fuzz/checks/import_others.rs).
mkdir -p "$OUT/seeds/import_others"
for pair in '0 gemini-cli.json' '0 gemini-cli.jsonl' '1 copilot-cli.jsonl' '2 aider.chat.history.md' '3 cline-task/cline.json' \
            '4 cline-task/roo-code.json' '5 cline-task/kilo-code.json' '6 opencode/ses-main.json'; do
  set -- $pair
  { printf "\\00$1"; cat "tests/fixtures/$2"; } > "$OUT/seeds/import_others/$1-$(basename "$2")"
done
seed frontmatter $(ls "$CORPUS"/rules/* "$CORPUS"/skills/*.md "$CORPUS"/odd/*.md 2>/dev/null || true)
seed rule_imports $(ls "$CORPUS"/rules/*.md 2>/dev/null || true)
# Answers: each fixture behind the three control bytes fuzz/checks/answer.rs reads — its API (0
# Anthropic, 1 Chat, 2 Responses, 3 Gemini), no HTTP status, no drop — and each HTTP fixture's
# body under its status (byte 1: 128 + the status's place in the target's table).
mkdir -p "$OUT/seeds/answer"
for f in tests/fixtures/answers/*; do
  case "$(basename "$f")" in anthropic-*) c='\000' ;; openai-chat-*) c='\001' ;; openai-responses-*) c='\002' ;; *) c='\003' ;; esac
  { printf "$c\000\000"; cat "$f"; } > "$OUT/seeds/answer/$(basename "$f")"
done
for f in tests/fixtures/http/*; do
  case "$(basename "$f")" in openai-chat-*) c='\001' ;; openai-responses-*) c='\002' ;; gemini-*) c='\003' ;; *) c='\000' ;; esac
  case "$(sed -n '1s/^HTTP\/1.1 \([0-9]*\).*/\1/p' "$f")" in 400) h='\201' ;; 413) h='\207' ;; 429) h='\210' ;; 500) h='\211' ;; 503) h='\213' ;; *) h='\215' ;; esac
  { printf "$c$h\000"; sed '1,/^\r\{0,1\}$/d' "$f"; } > "$OUT/seeds/answer/http-$(basename "$f")"
done
# Every input that once failed a target's checks (make test replays them too).
for d in fuzz/regressions/*/; do [ -d "$d" ] && seed "$(basename "$d")" "$d"*; done
mkdir -p "$OUT/seeds/rule_imports" "$OUT/seeds/tool_call_ids"
printf 'Root rules. See @a.md and @docs/b.md.\001Sub: @../a.md @~/d.md\001A: @docs/b.md\001B: @deep/c.md @../CLAUDE.md\001C: `@not/this.md` @../../a.md\001Home.' > "$OUT/seeds/rule_imports/cycle"
printf 'toolu_01A\001call_abc|fc_123\001call abc\001\001toolu_01A\001%s' "$(printf 'x%.0s' $(seq 1 80))" > "$OUT/seeds/tool_call_ids/mixed"

status=0
for t in $TARGETS; do
  mkdir -p "$OUT/corpus/$t" "$OUT/artifacts/$t"
  echo "== fuzz $t for ${SECONDS_EACH}s"
  if (cd fuzz && cargo +nightly fuzz run "$t" "../$OUT/corpus/$t" "../$OUT/seeds/$t" -- \
        -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
        -artifact_prefix="../$OUT/artifacts/$t/" -print_final_stats=1) > "$OUT/$t.log" 2>&1; then
    echo "   ok: $(grep -E '^#[0-9]+.*(DONE|pulse)' "$OUT/$t.log" | tail -1)"
  else
    echo "   FAILED (see $OUT/$t.log and $OUT/artifacts/$t/):"; tail -30 "$OUT/$t.log"; status=1
  fi
  grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$OUT/$t.log" | sed 's/^/   /' || true
done
exit $status
