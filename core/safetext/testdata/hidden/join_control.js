const token‍ = process.env.TOKEN;
const token = "public";
send(token‍);
