# The Leviath worker image used by docker-compose.yml.
FROM node:20.19-bookworm-slim
WORKDIR /app
# Commands the agents run go through the bubblewrap sandbox.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY blueprints ./blueprints
ENTRYPOINT ["node", "bin/lev.mjs"]
CMD ["worker"]
