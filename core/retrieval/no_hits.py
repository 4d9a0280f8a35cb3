"""Why retrieval found nothing, in one sentence a command can print: the repository's index is empty, the `--repo`
filter left out the repositories that do match, or no indexed term matched the question."""

from __future__ import annotations

from gradedesk.core.retrieval.hybrid import retrieve
from gradedesk.core.store.connection import Store
from gradedesk.core.store.index import RepoRecord, chunk_count, list_repos
from gradedesk.core.text.question import analyse_question


def why_no_hits(store: Store, question: str, repo: RepoRecord, repo_given: bool) -> str:
    """The reason `retrieve` gave no hits for `question` in `repo` (`repo_given`: the user chose it with --repo)."""
    if not chunk_count(store, repo.id):
        return f"the index of {repo.name!r} is empty (no chunks): index files with `gradedesk index PATH`"
    others = [r.name for r in list_repos(store) if r.id != repo.id and retrieve(store, question, repo=r, k=1)]
    if repo_given and others:
        return (f"no hits in {repo.name!r} (the --repo filter); the question matches in {', '.join(others)}: "
                f"pass --repo {others[0]}")
    terms = sorted(set(analyse_question(question).terms))
    return (f"no indexed term of {repo.name!r} matched the question "
            f"(its terms: {', '.join(terms[:12]) or 'none'})")
