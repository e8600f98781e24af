// Starts Swagger UI on this service's own document. The document and every
// asset come from this origin: no CDN, no fonts, no online validator.
// Same-origin requests carry the session cookie, which /openapi.json needs.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    docExpansion: "list",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
