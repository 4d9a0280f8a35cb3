"""make_provider: the offline answerer without a model or URL, an OpenAI-compatible endpoint otherwise."""

from __future__ import annotations

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.providers import OfflineExtractiveProvider, make_provider


def test_make_provider_chooses_offline_without_model_or_url(chat_server):
    assert isinstance(make_provider(None, None), OfflineExtractiveProvider)
    assert make_provider("gpt-4o-mini", chat_server.base_url).name == "openai-compatible"
    with pytest.raises(UserError, match="needs --model"):
        make_provider(None, chat_server.base_url)
