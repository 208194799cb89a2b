"""The local web page: upload a photo, check what was read, fix a clue, see it solved.

``kakuro serve`` runs :func:`web.app.create_app` under uvicorn.
"""
