#!/usr/bin/env bash
# The translator recipe for a lent GPU machine (JAX, no TensorFlow): the same model definition as the CPU
# trainer, run by studio.train.accelerated, several runs sharing the one GPU:
#   small_real      KO->EN, the shippable size (~24 MB float16), real pairs, MIN_MAIN minutes
#   small_noalpha   the same without subword sampling, MIN_ABLATION minutes    } compared with small_real
#   small_noweights the same without per-source weights, MIN_ABLATION minutes  } at equal target tokens
#   enko -> bt.tsv -> small_bt   EN->KO, back-translation of the English news, KO->EN on real + tagged synthetic
# Each run folder RUNS/<name> is a bundle (metrics.json holds the dev curves) with a log beside it.
# Usage: setsid train_translator_gpu.sh PREP RUNS   (PREP from `python -m studio.train.prepare_accelerated`)
set -u
PREP=$1; RUNS=$2; mkdir -p "$RUNS"
export KERAS_BACKEND=jax XLA_PYTHON_CLIENT_MEM_FRACTION=0.15 PYTHONUNBUFFERED=1
T="python3 -m studio.train.accelerated train --data $PREP --eval-minutes 1 --batch-tokens 16384 --alpha 0.1"
WEIGHTS="wmt24pp=3,korsts=1.5,bible_krv_web=0.5,libreoffice_ui=0.5,gimp_help=0.5"
SMALL="--set model.d_model=256 --set model.num_heads=4 --set model.d_ff=1024 --set model.num_layers=6 --set model.num_decoder_layers=3 --set model.dropout=0.2 --set model.max_source_len=128 --set model.max_target_len=128 --set train.warmup_steps=1000"
MIN_MAIN=${MIN_MAIN:-18}; MIN_ABLATION=${MIN_ABLATION:-8}; MIN_ENKO=${MIN_ENKO:-6}; MIN_BT=${MIN_BT:-9}

$T --out "$RUNS/small_real" $SMALL --weights "$WEIGHTS" --minutes "$MIN_MAIN" > "$RUNS/small_real.log" 2>&1 &
$T --out "$RUNS/small_noalpha" $SMALL --weights "$WEIGHTS" --alpha 0 --minutes "$MIN_ABLATION" \
  > "$RUNS/small_noalpha.log" 2>&1 &
$T --out "$RUNS/small_noweights" $SMALL --minutes "$MIN_ABLATION" > "$RUNS/small_noweights.log" 2>&1 &
( $T --out "$RUNS/enko" $SMALL --direction enko --weights "$WEIGHTS" --minutes "$MIN_ENKO" > "$RUNS/enko.log" 2>&1 \
  && python3 -m studio.train.accelerated translate --run "$RUNS/enko" --input "$PREP/mono_en.txt" \
       --output "$RUNS/bt.tsv" >> "$RUNS/enko.log" 2>&1 \
  && $T --out "$RUNS/small_bt" $SMALL --weights "$WEIGHTS" --synthetic "$RUNS/bt.tsv" --tag-synthetic \
       --minutes "$MIN_BT" > "$RUNS/small_bt.log" 2>&1 ) &
wait
echo ALL DONE > "$RUNS/done"
