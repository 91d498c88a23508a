#!/usr/bin/env bash
# synbench's default suite in check mode passes, and a bad problem fails with
# a message.
set -euo pipefail
synbench="$1"
"$synbench" --mode=check
if "$synbench" --mode=check 'channel_sum:c4,nhwc' >"$TEST_TMPDIR/bad.txt" 2>&1; then
  echo "synbench accepted a problem without s<N>" >&2
  exit 1
fi
grep -q 'INVALID' "$TEST_TMPDIR/bad.txt"
if "$synbench" --mode=check 'nosuchop:c4' >/dev/null 2>&1; then
  echo "synbench accepted an unknown op" >&2
  exit 1
fi
# --isa selects conv16b's algorithms by ISA prefix (avx2::*, sse41::*).
conv='conv16b:mb1,ic24,ih9,iw11,oc40,kh3,kw3,sh1,sw1,dh1,dw1,pt1,pl1,pb1,pr1,g1,nhwc,bf16bf16,relu'
dw='conv16b:mb1,ic24,ih9,iw11,oc24,kh3,kw3,sh1,sw1,dh1,dw1,pt1,pl1,pb1,pr1,g24,nchw,f32f32,prelu'
# (x86 binaries only: under qemu the script runs on the host; and a check
# capped below the ISA by SYNOPS_MAX_ISA reports a skip.)
"$synbench" --mode=check "$conv" >"$TEST_TMPDIR/features.txt" 2>&1
if grep -q 'cpu features:.*sse4.1' "$TEST_TMPDIR/features.txt"; then
  for isa in avx2 sse41; do
    "$synbench" --mode=check --isa=$isa "$conv" "$dw" >"$TEST_TMPDIR/isa.txt"
    for algorithm in nhwc_gemm nhwc_depthwise; do
      grep -qE "$isa::$algorithm +(ok|skip \(CPU lacks)" "$TEST_TMPDIR/isa.txt" || {
        cat "$TEST_TMPDIR/isa.txt" >&2
        echo "--isa=$isa did not check $isa::$algorithm" >&2
        exit 1
      }
    done
  done
fi
echo "synbench_check_test: ok"
