"""The commands that open the desk (`grade`, `demo`): argparse-light at import, textual only inside their handlers."""
