#!/bin/bash
# check-config.sh DOTCONFIG FRAGMENT...: verify that every option a fragment
# sets (CONFIG_X=value or "# CONFIG_X is not set") has that value in
# DOTCONFIG.  Kconfig silently drops options whose dependencies are missing;
# this names them.  Exit 0 when all match, 1 otherwise.
set -euo pipefail
dotconfig=$1
shift
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		want=$line ;;
	"# CONFIG_"*" is not set")
		want=$line ;;
	*)
		continue ;;
	esac
	name=${want#\# }
	name=${name%%[= ]*}
	have=$(grep -E "^($name=|# $name is not set)" "$dotconfig" || true)
	# An unset option may also be absent from .config altogether.
	if [ "$have" != "$want" ] &&
	   ! { [[ $want == "# "* ]] && [ -z "$have" ]; }; then
		echo "config: $name: fragment wants '${want}', .config has '${have:-<absent>}'" >&2
		bad=1
	fi
done < <(cat "$@")
if [ $bad -ne 0 ]; then
	echo "error: kernel config is missing options requested by $(printf '%s ' "$@")(check their dependencies)" >&2
	exit 1
fi
echo "config: all $(grep -chE '^(CONFIG_|# CONFIG_.* is not set)' "$@" | paste -sd+ | bc) requested options are set"
