#!/bin/sh
# Extract the strings marked for translation (_(), N_(), ngettext; {{ _() }} and {% trans %} in the templates) into
# ledger/locale/ledger.pot and merge them into each language's .po (new strings come in untranslated, vanished
# ones are kept as obsolete "#~" entries). Then translate the empty msgstr of ledger/locale/<lang>/LC_MESSAGES/
# ledger.po. No compile step: ledger/i18n.py compiles the .po when a language is first used.
set -eu
cd "$(dirname "$0")/.."
PYBABEL="${PYTHON:-python} -m babel.messages.frontend"
$PYBABEL -q extract -F babel.cfg -k N_ --no-location --sort-output --project=ledger -o ledger/locale/ledger.pot .
for po in ledger/locale/*/LC_MESSAGES/ledger.po; do
  lang=$(basename "$(dirname "$(dirname "$po")")")
  $PYBABEL -q update -i ledger/locale/ledger.pot -d ledger/locale -D ledger -l "$lang" --no-fuzzy-matching \
    --ignore-obsolete
done
