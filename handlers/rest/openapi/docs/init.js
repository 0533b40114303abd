// Renders /api/v1/openapi.json. validatorUrl null keeps the page from calling the public
// validator (the viewer works offline); "Authorize" takes a key for "Try it out".
window.ui = SwaggerUIBundle({
  url: "/api/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
});
