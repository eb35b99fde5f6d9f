"""The web page of ``elements-ai serve``: the games played against bots in a browser.

It needs the ``web`` extra (``pip install "elements-ai[web]"``): the app is in
``elements_ai.web.app`` (``create_app``), the page in ``static/``.
"""
