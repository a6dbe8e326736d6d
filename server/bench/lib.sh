# Shared by the benchmark scripts: medians and spreads of space-separated numbers.
# median "3 1 2" → 2
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# stat "3 1 2" %.0f → "2 (1–3)": the median, then the lowest and the highest run.
stat() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk -v f="$2" '{a[NR]=$1} END {printf f " (" f "–" f ")", a[int((NR+1)/2)], a[1], a[NR]}'; }
