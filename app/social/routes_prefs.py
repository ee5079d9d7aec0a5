"""``/api/me/language``: the language the server writes its own strings in for you."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.requests import Request

from app.api.deps import CurrentUser, DbDep
from app.core.errors import ERROR_RESPONSES
from app.social import i18n, prefs
from app.social.schemas import LanguageIn, LanguageOut

router = APIRouter(prefix="/api", tags=["social"], responses=ERROR_RESPONSES)


async def reader_language(request: Request, user: CurrentUser, db: DbDep) -> str:
    return await prefs.language_of(db, user.id, request.headers.get("accept-language"))


LangDep = Annotated[str, Depends(reader_language)]


@router.get("/me/language", response_model=LanguageOut)
async def my_language(lang: LangDep) -> LanguageOut:
    """The stored choice, else the first of ours in Accept-Language, else Spanish."""
    return LanguageOut(language=lang, languages=list(i18n.LANGUAGES))


@router.put("/me/language", response_model=LanguageOut)
async def choose_language(body: LanguageIn, user: CurrentUser, db: DbDep) -> LanguageOut:
    language = await prefs.set_language(db, user.id, body.language)
    await db.commit()
    return LanguageOut(language=language, languages=list(i18n.LANGUAGES))
