#!/usr/bin/env bash
# The translator recipe for a lent GPU machine (JAX, no TensorFlow), runs sharing the one GPU:
#   phase 1  enko       EN->KO, the shippable size, real pairs, MIN_ENKO minutes
#            big_real   KO->EN, the larger size (~50 MB float16), real pairs only, MIN_BIG_REAL minutes
#   then     bt.tsv     enko translates the English news (PREP/mono_en.txt) into Korean, greedy
#   phase 2  small_bt   KO->EN, the shippable size, real + tagged synthetic pairs, MIN_BT minutes
#            big_bt     KO->EN, the larger size, real + tagged synthetic pairs, MIN_BT minutes
# small_bt compares with the shipped run (same recipe without synthetic pairs) and big_bt with big_real, at
# equal target tokens. Each run folder RUNS/<name> is a bundle (metrics.json holds the dev curves), log beside it.
# Usage: setsid train_translator_gpu.sh PREP RUNS   (PREP from `python -m studio.train.prepare_accelerated`)
set -u
PREP=$1; RUNS=$2; mkdir -p "$RUNS"
# one XLA compilation cache: enko and small_bt have the same shapes, so small_bt starts without compiling
export KERAS_BACKEND=jax XLA_PYTHON_CLIENT_MEM_FRACTION=0.2 PYTHONUNBUFFERED=1 \
  JAX_COMPILATION_CACHE_DIR=/tmp/jax-cache JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
T="python3 -m studio.train.accelerated train --data $PREP --eval-minutes 1 --batch-tokens 16384 --alpha 0"
WEIGHTS="wmt24pp=3,korsts=1.5,bible_krv_web=0.5,libreoffice_ui=0.5,gimp_help=0.5"
COMMON="--set model.max_source_len=128 --set model.max_target_len=128 --set train.warmup_steps=1000"
SMALL="$COMMON --set model.d_model=256 --set model.num_heads=4 --set model.d_ff=1024 --set model.num_layers=6 --set model.num_decoder_layers=3 --set model.dropout=0.2"
# deep encoder, shallow decoder: the per-token cost is the decoder's, so width goes where a token costs least
BIG="$COMMON --set model.d_model=384 --set model.num_heads=6 --set model.d_ff=1536 --set model.num_layers=8 --set model.num_decoder_layers=2 --set model.dropout=0.3"
MIN_ENKO=${MIN_ENKO:-6}; MIN_BIG_REAL=${MIN_BIG_REAL:-10}; MIN_BT=${MIN_BT:-11}

$T --out "$RUNS/big_real" $BIG --weights "$WEIGHTS" --minutes "$MIN_BIG_REAL" > "$RUNS/big_real.log" 2>&1 &
$T --out "$RUNS/enko" $SMALL --direction enko --weights "$WEIGHTS" --minutes "$MIN_ENKO" > "$RUNS/enko.log" 2>&1 \
  && python3 -m studio.train.accelerated translate --run "$RUNS/enko" --input "$PREP/mono_en.txt" \
       --output "$RUNS/bt.tsv" >> "$RUNS/enko.log" 2>&1 \
  && { $T --out "$RUNS/small_bt" $SMALL --weights "$WEIGHTS" --synthetic "$RUNS/bt.tsv" --tag-synthetic \
         --minutes "$MIN_BT" > "$RUNS/small_bt.log" 2>&1 &
       $T --out "$RUNS/big_bt" $BIG --weights "$WEIGHTS" --synthetic "$RUNS/bt.tsv" --tag-synthetic \
         --minutes "$MIN_BT" > "$RUNS/big_bt.log" 2>&1 & }
wait
echo ALL DONE > "$RUNS/done"
