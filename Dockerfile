# The Leviath worker image used by docker-compose.yml.
FROM node:20.19-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY blueprints ./blueprints
ENTRYPOINT ["node", "bin/lev.mjs"]
CMD ["worker"]
