"""The `quizzer completion SHELL` verb: a shell completion script for bash, zsh or fish.

bash and zsh come from shtab (imported here only: the other verbs never load it), which walks the argparse
parser; shtab has no fish, so fish's script is written from the same parser here: the verbs, then each
verb's options and their choices.
"""

from __future__ import annotations

import argparse

SHELLS = ("bash", "zsh", "fish")


def _fish(parser: argparse.ArgumentParser) -> str:
    """A fish completion script for ``parser``: verbs with their help, then each verb's options."""
    lines = ["# fish completion for quizzer (quizzer completion fish)", "complete -c quizzer -f"]
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help or "" for choice in verbs._choices_actions}
    names = " ".join(verbs.choices)
    for name, sub in verbs.choices.items():
        text = helps.get(name, "").replace("'", "\\'")
        lines.append(
            f"complete -c quizzer -n 'not __fish_seen_subcommand_from {names}' -a {name} -d '{text}'"
        )
        for action in sub._actions:
            longs = [o[2:] for o in action.option_strings if o.startswith("--")]
            if not longs or action.dest == "help":
                continue
            about = (action.help or "").replace("'", "\\'").split(";")[0]
            takes = " -r" if action.nargs != 0 else ""
            choices = f" -a '{' '.join(map(str, action.choices))}'" if action.choices else ""
            condition = f"__fish_seen_subcommand_from {name}"
            lines.append(f"complete -c quizzer -n '{condition}' -l {longs[0]}{takes}{choices} -d '{about}'")
    lines.append("complete -c quizzer -l version -d 'print the version'")
    return "\n".join(lines) + "\n"


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    """The completion script for ``shell`` (one of ``SHELLS``) from the full parser."""
    if shell == "fish":
        return _fish(parser)
    import shtab  # only this verb needs it: the others never load it

    return str(shtab.complete(parser, shell=shell))


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Print the script for ``args.shell``; ``parser`` is the whole command line's (every verb)."""
    print(script(args.shell, parser), end="")
    return 0
