#!/usr/bin/env bash
# The translator recipe for a lent GPU machine (JAX, no TensorFlow), as one command that ends inside BUDGET_MIN:
#   1  enko_warm     EN->KO for ENKO_MIN minutes, warm-started from ENKO_INIT: the KO->EN bundle INIT (one shared
#                    vocabulary, so its weights fit with the sides swapped) or an earlier lease's EN->KO bundle, at
#                    ENKO_LR times the paper's rate; ENKO_FROM="warm scratch" trains a from-scratch
#                    enko_scratch beside it (sharing the GPU) and the better one back-translates
#   2  bt.tsv        the EN->KO model with the higher mean greedy dev chrF translates PREP/mono_en.txt into Korean
#   3  bt_ft         KO->EN warm-started from INIT on real + tagged synthetic pairs at FT_LR, for what is left
# Every run uses the same three bucket shapes and batch size, and the learning rate is an input of the compiled
# step, so one persistent compilation cache serves them all: phase 3 starts training without compiling.
# As each phase ends its results are copied to OUT (at most 8 files, none over 15 MiB): results.tar.gz (every
# run's bundle but its weights, logs, histories), enko.weights.npz.NN and bt_ft.weights.npz.NN (float16 weights in
# 15 MiB parts: `cat bt_ft.weights.npz.* > weights.npz`) and bt.tsv.gz.NN.
# Usage: scripts/train_translator_gpu.sh PREP RUNS OUT
#   PREP from `python -m studio.train.prepare_accelerated --out PREP --tokenizer-from assets/translator`
# Settings (environment): BUDGET_MIN 9.3, ENKO_MIN 4.3, ENKO_FROM warm, INIT assets/translator, ENKO_INIT INIT,
#   ENKO_LR 0.5, FT_LR 0.25, BUCKETS 32,64,128,
#   BATCH_TOKENS 16384, EVAL_MIN 1, MAX_STEPS (a test-sized run: steps per run), FINISH_S 50 (kept for the last
#   choice, saving and packing).
set -u
PREP=$1; RUNS=$2; OUT=$3; mkdir -p "$RUNS" "$OUT"
BUDGET_MIN=${BUDGET_MIN:-9.3}; ENKO_MIN=${ENKO_MIN:-4.3}; ENKO_FROM=${ENKO_FROM:-warm}; INIT=${INIT:-assets/translator}
ENKO_INIT=${ENKO_INIT:-$INIT}; ENKO_LR=${ENKO_LR:-0.5}; FT_LR=${FT_LR:-0.25}
BUCKETS=${BUCKETS:-32,64,128}; BATCH_TOKENS=${BATCH_TOKENS:-16384}; EVAL_MIN=${EVAL_MIN:-1}
MAX_STEPS=${MAX_STEPS:-1000000000}; FINISH_S=${FINISH_S:-50}
export KERAS_BACKEND=jax PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_MEM_FRACTION=${XLA_PYTHON_CLIENT_MEM_FRACTION:-0.4} \
  JAX_COMPILATION_CACHE_DIR=${JAX_COMPILATION_CACHE_DIR:-/tmp/jax-cache} JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
PY=${PYTHON:-python3}
T="$PY -m studio.train.accelerated train --data $PREP --eval-minutes $EVAL_MIN --batch-tokens $BATCH_TOKENS \
  --buckets $BUCKETS --max-steps $MAX_STEPS --alpha 0"
WEIGHTS="wmt24pp=3,korsts=1.5,bible_krv_web=0.5,libreoffice_ui=0.5,gimp_help=0.5"
log() { echo "[$(date +%T) +${SECONDS}s] $*"; }

pack() {  # the runs so far, without their weights, into OUT/results.tar.gz
  (cd "$RUNS" && tar czf "$OUT/results.tar.gz" --exclude=weights.npz --exclude=bt.tsv -- *)
}
pack_weights() {  # RUN NAME: RUN's weights as OUT/NAME.weights.npz.00, .01, ...
  [ -f "$RUNS/$1/weights.npz" ] && split -b 15M -d "$RUNS/$1/weights.npz" "$OUT/$2.weights.npz."
}
mean_chrf() {  # RUN: the mean greedy dev chrF of its chosen weights (-1 when it has none)
  $PY - "$1" <<'PYTHON'
import json, sys
try:
    m = json.load(open(sys.argv[1] + "/metrics.json"))
    record = m["candidates"][m["weights"]]
    scores = [v["chrf"] for v in record.values() if isinstance(v, dict) and "chrf" in v]
    print(f"{sum(scores) / len(scores):.2f}")
except (OSError, KeyError, ValueError, ZeroDivisionError):
    print(-1)
PYTHON
}

log "phase 1: EN->KO ($ENKO_FROM, warm from $ENKO_INIT), $ENKO_MIN minutes"
for start in $ENKO_FROM; do
  case $start in
    warm) FROM="--init-from $ENKO_INIT --set train.lr_scale=$ENKO_LR";;
    scratch) FROM="";;
    *) log "ENKO_FROM: warm or scratch, not $start"; exit 2;;
  esac
  $T --out "$RUNS/enko_$start" --direction enko --weights "$WEIGHTS" --minutes "$ENKO_MIN" \
    --set train.warmup_steps=1000 $FROM > "$RUNS/enko_$start.log" 2>&1 &
done
wait
ENKO=; BEST=-1
for start in $ENKO_FROM; do
  SCORE=$(mean_chrf "$RUNS/enko_$start")
  log "EN->KO from $start: mean dev chrF $SCORE ($(grep -h '^done' "$RUNS/enko_$start.log"))"
  if $PY -c "import sys; sys.exit(not $SCORE > $BEST)"; then ENKO=enko_$start; BEST=$SCORE; fi
done
pack
[ -n "$ENKO" ] || { log "no EN->KO model finished: see the logs"; exit 1; }

log "phase 2: back-translation of $(wc -l < "$PREP/mono_en.txt") English lines"
$PY -m studio.train.accelerated translate --run "$RUNS/$ENKO" --input "$PREP/mono_en.txt" \
  --output "$RUNS/bt.tsv" >> "$RUNS/$ENKO.log" 2>&1 || { log "back-translation failed"; pack; exit 1; }
log "$(tail -1 "$RUNS/$ENKO.log")"

FT_MIN=$($PY -c "print(max(0.5, round(($BUDGET_MIN * 60 - $SECONDS - $FINISH_S) / 60, 2)))")
log "phase 3: KO->EN from $INIT on real + back-translated pairs, $FT_MIN minutes"
$T --out "$RUNS/bt_ft" --weights "$WEIGHTS" --minutes "$FT_MIN" --init-from "$INIT" --synthetic "$RUNS/bt.tsv" \
  --tag-synthetic --set train.warmup_steps=1000 --set train.lr_scale=$FT_LR > "$RUNS/bt_ft.log" 2>&1 &
FT=$!
# while bt_ft trains, the EN->KO model and the synthetic corpus travel back (the CPU is idle meanwhile)
pack_weights "$ENKO" enko
gzip -c "$RUNS/bt.tsv" | split -b 15M -d - "$OUT/bt.tsv.gz."
wait $FT || log "bt_ft failed: see bt_ft.log"
log "KO->EN mean dev chrF: $(mean_chrf "$RUNS/bt_ft") ($(grep -h '^done' "$RUNS/bt_ft.log"))"
pack_weights bt_ft bt_ft
pack
log "done"
