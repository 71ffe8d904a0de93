# The Leviath worker image used by docker-compose.yml; it runs as the
# unprivileged `node` user of the base image.
FROM node:20.19-bookworm-slim
WORKDIR /app
# Commands the agents run go through the bubblewrap sandbox.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY blueprints ./blueprints
# The compiled CLI and the prebuilt workflow bundle, so a worker starts without compiling anything.
RUN node scripts/build.mjs
RUN mkdir -p /home/node/.leviath && chown -R node:node /home/node/.leviath /app/blueprints
USER node
ENV LEVIATH_HOME=/home/node/.leviath
ENTRYPOINT ["node", "bin/lev.mjs"]
CMD ["worker"]
