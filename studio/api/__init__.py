"""Programs' ways in that are not the app's page: the LibreTranslate-compatible REST API (`studio.api.libretranslate`),
mounted on the app's server. It imports no Gradio: it shares the tabs' request core (`studio.app_model`)."""
