"""mkdocs hooks (mkdocs.yml names this file; it is not a page).

- The command reference (reference.md) is generated from the console script's argparse parsers at build time, so it
  cannot drift from the commands.
- The site's home page is the README, its links turned into the site's: one text, not two to keep in step.
- The screenshot is the snapshot SVG the README shows, which the desk's snapshot tests make: the site serves that file
  from where the tests keep it (images/desk.svg), so there is one copy and one place that names it (the README's image
  link). A README without that image, or an image that is gone, fails the build.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

SCREENSHOT_LINK = re.compile(r"!\[[^\]]*\]\((tests/[^)\s]+\.svg)\)")


def readme_screenshot(root: Path) -> Path:
    """The snapshot SVG the README's image link names."""
    found = SCREENSHOT_LINK.search((root / "README.md").read_text(encoding="utf-8"))
    if not found or not (root / found.group(1)).is_file():
        raise PluginError("README.md: its screenshot must be a snapshot SVG under tests/ that exists")
    return root / found.group(1)


def home_page(readme: str) -> str:
    """The README as the site's home page: links into docs/ become the site's own, the screenshot the served copy."""
    page = SCREENSHOT_LINK.sub(lambda m: m.group(0).replace(m.group(1), "images/desk.svg"), readme)
    return page.replace("](docs/", "](").replace("- Command reference:", "- [Command reference](reference.md):")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from gradedesk.core.cli.reference import reference_markdown
    from gradedesk.tui.cli import build_parser

    root = Path(config.config_file_path).parent
    files.append(File.generated(config, "index.md", content=home_page((root / "README.md").read_text(encoding="utf-8"))))
    files.append(File.generated(config, "reference.md", content=reference_markdown(build_parser())))
    files.append(File.generated(config, "images/desk.svg", abs_src_path=str(readme_screenshot(root))))
    return files
