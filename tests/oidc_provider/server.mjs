// A real OpenID Connect provider for the sign-in tests (tests/test_oidc.py): node-oidc-provider,
// pinned (tests/oidc_support.py), with its development login form (any name, any password).
// A login names the e-mail address; "@example.com" logins get the group "playground-staff"
// when they start with "boss". Usage: node server.mjs PORT CLIENT_ID SECRET REDIRECT LOGOUT
import Provider from "oidc-provider";

const [port, clientId, clientSecret, redirectUri, postLogout] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      post_logout_redirect_uris: [postLogout],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_post",
    },
  ],
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
  features: { devInteractions: { enabled: true } },
  async findAccount(ctx, id) {
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          email: id,
          email_verified: true,
          name: id.split("@")[0],
          groups: id.startsWith("boss") ? ["playground-staff"] : ["people"],
        };
      },
    };
  },
  // The userinfo endpoint answers the claims too (the library asks it).
  conformIdTokenClaims: false,
  ttl: { IdToken: 3600, AccessToken: 3600, Session: 3600, Interaction: 600, Grant: 3600 },
});
provider.proxy = false;
provider.listen(Number(port), "127.0.0.1", () => {
  process.stdout.write(`listening ${issuer}\n`);
});
