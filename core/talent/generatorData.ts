/** Word pools for the synthetic people generator: names across cultures, places, work. */

export interface Culture {
  first: string[];
  last: string[];
  countries: string[];
  languages: string[];
}

export const CULTURES: Culture[] = [
  { first: ['James', 'Emma', 'Oliver', 'Sophia', 'William', 'Ava', 'Noah', 'Mia', 'Liam', 'Charlotte', 'Ethan', 'Amelia', 'Lucas', 'Harper', 'Mason', 'Evelyn', 'Logan', 'Abigail', 'Jack', 'Emily', 'Henry', 'Grace', 'Samuel', 'Chloe'],
    last: ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Miller', 'Davis', 'Wilson', 'Taylor', 'Anderson', 'Thomas', 'Moore', 'Martin', 'Thompson', 'White', 'Harris', 'Clark', 'Lewis', 'Walker', 'Hall', 'Young', 'King', 'Wright', 'Scott'],
    countries: ['US', 'GB', 'CA', 'AU', 'IE'], languages: ['English'] },
  { first: ['Lukas', 'Anna', 'Felix', 'Lea', 'Jonas', 'Hannah', 'Maximilian', 'Lena', 'Paul', 'Marie', 'Leon', 'Sophie', 'Finn', 'Laura', 'Tim', 'Julia'],
    last: ['Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Koch', 'Richter', 'Klein', 'Wolf', 'Neumann', 'Braun'],
    countries: ['DE', 'AT', 'CH'], languages: ['German', 'English'] },
  { first: ['Lucas', 'Camille', 'Hugo', 'Léa', 'Louis', 'Manon', 'Jules', 'Chloé', 'Arthur', 'Inès', 'Gabriel', 'Juliette', 'Théo', 'Louise'],
    last: ['Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent', 'Lefebvre', 'Michel'],
    countries: ['FR', 'BE', 'CA'], languages: ['French', 'English'] },
  { first: ['Santiago', 'Lucía', 'Mateo', 'Sofía', 'Diego', 'Valentina', 'Alejandro', 'Camila', 'Javier', 'Isabella', 'Carlos', 'María', 'Pablo', 'Elena'],
    last: ['García', 'Rodríguez', 'Martínez', 'López', 'González', 'Hernández', 'Pérez', 'Sánchez', 'Ramírez', 'Torres', 'Flores', 'Rivera', 'Gómez', 'Díaz'],
    countries: ['ES', 'MX', 'AR', 'CO'], languages: ['Spanish', 'English'] },
  { first: ['Aarav', 'Priya', 'Vivaan', 'Ananya', 'Arjun', 'Diya', 'Rohan', 'Isha', 'Vikram', 'Kavya', 'Rahul', 'Neha', 'Aditya', 'Pooja'],
    last: ['Sharma', 'Patel', 'Singh', 'Kumar', 'Gupta', 'Reddy', 'Iyer', 'Nair', 'Mehta', 'Joshi', 'Rao', 'Desai', 'Chopra', 'Banerjee'],
    countries: ['IN', 'GB', 'US', 'SG'], languages: ['Hindi', 'English'] },
  { first: ['Wei', 'Li', 'Jun', 'Mei', 'Hao', 'Xin', 'Yang', 'Jing', 'Lei', 'Yan', 'Chen', 'Hui'],
    last: ['Wang', 'Li', 'Zhang', 'Liu', 'Chen', 'Yang', 'Huang', 'Zhao', 'Wu', 'Zhou', 'Xu', 'Sun'],
    countries: ['CN', 'SG', 'US', 'CA'], languages: ['Mandarin', 'English'] },
  { first: ['Haruto', 'Yui', 'Sota', 'Hina', 'Ren', 'Aoi', 'Yuto', 'Sakura', 'Kaito', 'Mio'],
    last: ['Sato', 'Suzuki', 'Takahashi', 'Tanaka', 'Watanabe', 'Ito', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Kato'],
    countries: ['JP'], languages: ['Japanese', 'English'] },
  { first: ['Chidi', 'Amara', 'Emeka', 'Ngozi', 'Tunde', 'Folake', 'Kwame', 'Ama', 'Kofi', 'Abena', 'Sipho', 'Thandiwe'],
    last: ['Okafor', 'Adeyemi', 'Okonkwo', 'Mensah', 'Boateng', 'Nkosi', 'Dlamini', 'Eze', 'Balogun', 'Owusu', 'Abubakar', 'Mahlangu'],
    countries: ['NG', 'GH', 'ZA', 'KE', 'GB'], languages: ['English', 'Yoruba'] },
  { first: ['Omar', 'Layla', 'Youssef', 'Fatima', 'Karim', 'Nour', 'Ahmed', 'Salma', 'Hassan', 'Mariam', 'Tariq', 'Yasmin'],
    last: ['Haddad', 'Khalil', 'Nasser', 'Mansour', 'Saleh', 'Farouk', 'Hamdan', 'Aziz', 'Rahman', 'Ibrahim', 'Mostafa', 'Karam'],
    countries: ['AE', 'EG', 'JO', 'SA', 'FR'], languages: ['Arabic', 'English'] },
  { first: ['João', 'Ana', 'Pedro', 'Beatriz', 'Gustavo', 'Larissa', 'Rafael', 'Juliana', 'Thiago', 'Fernanda'],
    last: ['Silva', 'Santos', 'Oliveira', 'Souza', 'Lima', 'Pereira', 'Costa', 'Carvalho', 'Almeida', 'Ribeiro'],
    countries: ['BR', 'PT'], languages: ['Portuguese', 'English'] },
  { first: ['Jakub', 'Zuzanna', 'Piotr', 'Katarzyna', 'Tomasz', 'Agnieszka', 'Michał', 'Magdalena', 'Ivan', 'Olena', 'Dmytro', 'Iryna'],
    last: ['Nowak', 'Kowalski', 'Wiśniewski', 'Wójcik', 'Kamiński', 'Lewandowski', 'Shevchenko', 'Kovalenko', 'Bondarenko', 'Tkachenko', 'Zieliński', 'Szymański'],
    countries: ['PL', 'UA', 'DE'], languages: ['Polish', 'Ukrainian', 'English'] },
  { first: ['Erik', 'Astrid', 'Lars', 'Ingrid', 'Anders', 'Freja', 'Mikkel', 'Sofie', 'Nils', 'Elin'],
    last: ['Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Hansen', 'Jensen', 'Nielsen', 'Larsen', 'Olsen', 'Berg'],
    countries: ['SE', 'NO', 'DK', 'NL'], languages: ['Swedish', 'English'] },
  { first: ['Min-jun', 'Seo-yeon', 'Ji-ho', 'Ha-eun', 'Do-yun', 'Su-ah', 'Jae-won', 'Ji-woo'],
    last: ['Kim', 'Lee', 'Park', 'Choi', 'Jung', 'Kang', 'Cho', 'Yoon'],
    countries: ['KR', 'US'], languages: ['Korean', 'English'] },
];

/** Country code → country name, and [region, cities] pairs. */
export const PLACES: Record<string, { country: string; regions: Array<[string, string[]]> }> = {
  US: { country: 'United States', regions: [['California', ['San Francisco', 'Los Angeles', 'San Diego', 'San Jose']], ['New York', ['New York', 'Brooklyn', 'Buffalo']], ['Texas', ['Austin', 'Houston', 'Dallas']], ['Washington', ['Seattle', 'Bellevue']], ['Massachusetts', ['Boston', 'Cambridge']], ['Illinois', ['Chicago']], ['Colorado', ['Denver', 'Boulder']]] },
  GB: { country: 'United Kingdom', regions: [['England', ['London', 'Manchester', 'Bristol', 'Leeds', 'Cambridge']], ['Scotland', ['Edinburgh', 'Glasgow']]] },
  CA: { country: 'Canada', regions: [['Ontario', ['Toronto', 'Ottawa', 'Waterloo']], ['British Columbia', ['Vancouver']], ['Quebec', ['Montreal', 'Quebec City']]] },
  AU: { country: 'Australia', regions: [['New South Wales', ['Sydney']], ['Victoria', ['Melbourne']], ['Queensland', ['Brisbane']]] },
  IE: { country: 'Ireland', regions: [['Leinster', ['Dublin']], ['Munster', ['Cork', 'Limerick']]] },
  DE: { country: 'Germany', regions: [['Berlin', ['Berlin']], ['Bavaria', ['Munich', 'Nuremberg']], ['Hamburg', ['Hamburg']], ['Hesse', ['Frankfurt']], ['North Rhine-Westphalia', ['Cologne', 'Düsseldorf']]] },
  AT: { country: 'Austria', regions: [['Vienna', ['Vienna']], ['Styria', ['Graz']]] },
  CH: { country: 'Switzerland', regions: [['Zurich', ['Zurich']], ['Geneva', ['Geneva']], ['Vaud', ['Lausanne']]] },
  FR: { country: 'France', regions: [['Île-de-France', ['Paris']], ['Auvergne-Rhône-Alpes', ['Lyon', 'Grenoble']], ["Provence-Alpes-Côte d'Azur", ['Marseille', 'Nice']], ['Occitanie', ['Toulouse', 'Montpellier']]] },
  BE: { country: 'Belgium', regions: [['Brussels', ['Brussels']], ['Flanders', ['Antwerp', 'Ghent']]] },
  ES: { country: 'Spain', regions: [['Madrid', ['Madrid']], ['Catalonia', ['Barcelona']], ['Valencia', ['Valencia']], ['Andalusia', ['Seville', 'Málaga']]] },
  MX: { country: 'Mexico', regions: [['Mexico City', ['Mexico City']], ['Jalisco', ['Guadalajara']], ['Nuevo León', ['Monterrey']]] },
  AR: { country: 'Argentina', regions: [['Buenos Aires', ['Buenos Aires']], ['Córdoba', ['Córdoba']]] },
  CO: { country: 'Colombia', regions: [['Bogotá', ['Bogotá']], ['Antioquia', ['Medellín']]] },
  IN: { country: 'India', regions: [['Karnataka', ['Bengaluru', 'Mysuru']], ['Maharashtra', ['Mumbai', 'Pune']], ['Telangana', ['Hyderabad']], ['Delhi', ['New Delhi']], ['Tamil Nadu', ['Chennai']]] },
  SG: { country: 'Singapore', regions: [['Singapore', ['Singapore']]] },
  CN: { country: 'China', regions: [['Beijing', ['Beijing']], ['Shanghai', ['Shanghai']], ['Guangdong', ['Shenzhen', 'Guangzhou']], ['Zhejiang', ['Hangzhou']]] },
  JP: { country: 'Japan', regions: [['Tokyo', ['Tokyo']], ['Osaka', ['Osaka']], ['Kanagawa', ['Yokohama']], ['Fukuoka', ['Fukuoka']]] },
  NG: { country: 'Nigeria', regions: [['Lagos', ['Lagos']], ['FCT', ['Abuja']]] },
  GH: { country: 'Ghana', regions: [['Greater Accra', ['Accra']]] },
  ZA: { country: 'South Africa', regions: [['Gauteng', ['Johannesburg', 'Pretoria']], ['Western Cape', ['Cape Town']]] },
  KE: { country: 'Kenya', regions: [['Nairobi', ['Nairobi']]] },
  AE: { country: 'United Arab Emirates', regions: [['Dubai', ['Dubai']], ['Abu Dhabi', ['Abu Dhabi']]] },
  EG: { country: 'Egypt', regions: [['Cairo', ['Cairo']], ['Alexandria', ['Alexandria']]] },
  JO: { country: 'Jordan', regions: [['Amman', ['Amman']]] },
  SA: { country: 'Saudi Arabia', regions: [['Riyadh', ['Riyadh']], ['Makkah', ['Jeddah']]] },
  BR: { country: 'Brazil', regions: [['São Paulo', ['São Paulo', 'Campinas']], ['Rio de Janeiro', ['Rio de Janeiro']], ['Minas Gerais', ['Belo Horizonte']]] },
  PT: { country: 'Portugal', regions: [['Lisbon', ['Lisbon']], ['Porto', ['Porto']]] },
  PL: { country: 'Poland', regions: [['Masovia', ['Warsaw']], ['Lesser Poland', ['Kraków']], ['Lower Silesia', ['Wrocław']]] },
  UA: { country: 'Ukraine', regions: [['Kyiv', ['Kyiv']], ['Lviv', ['Lviv']]] },
  SE: { country: 'Sweden', regions: [['Stockholm', ['Stockholm']], ['Västra Götaland', ['Gothenburg']]] },
  NO: { country: 'Norway', regions: [['Oslo', ['Oslo']], ['Vestland', ['Bergen']]] },
  DK: { country: 'Denmark', regions: [['Capital Region', ['Copenhagen']], ['Central Denmark', ['Aarhus']]] },
  NL: { country: 'Netherlands', regions: [['North Holland', ['Amsterdam']], ['South Holland', ['Rotterdam', 'The Hague']], ['Utrecht', ['Utrecht']]] },
  KR: { country: 'South Korea', regions: [['Seoul', ['Seoul']], ['Busan', ['Busan']]] },
};

export const PHONE_PREFIX: Record<string, string> = {
  US: '+1', CA: '+1', GB: '+44', AU: '+61', IE: '+353', DE: '+49', AT: '+43', CH: '+41', FR: '+33', BE: '+32', ES: '+34',
  MX: '+52', AR: '+54', CO: '+57', IN: '+91', SG: '+65', CN: '+86', JP: '+81', NG: '+234', GH: '+233', ZA: '+27', KE: '+254',
  AE: '+971', EG: '+20', JO: '+962', SA: '+966', BR: '+55', PT: '+351', PL: '+48', UA: '+380', SE: '+46', NO: '+47', DK: '+45',
  NL: '+31', KR: '+82',
};

/** A job family: its titles (by rank), the skills it uses, and degree fields. */
export interface JobFamily {
  name: string;
  titles: string[];
  skills: string[];
  fields: string[];
  weight: number;
}

export const JOB_FAMILIES: JobFamily[] = [
  { name: 'software', weight: 28, titles: ['Software Engineer', 'Backend Engineer', 'Frontend Engineer', 'Full Stack Developer', 'Mobile Developer', 'Site Reliability Engineer', 'DevOps Engineer', 'Platform Engineer'],
    skills: ['JavaScript', 'TypeScript', 'Python', 'Java', 'Go', 'Rust', 'C++', 'Kotlin', 'Swift', 'React', 'Node.js', 'Kubernetes', 'Docker', 'AWS', 'GCP', 'Azure', 'PostgreSQL', 'MongoDB', 'GraphQL', 'Terraform', 'Microservices', 'CI/CD', 'Linux', 'Redis', 'Kafka'],
    fields: ['Computer Science', 'Software Engineering', 'Electrical Engineering', 'Mathematics'] },
  { name: 'data', weight: 12, titles: ['Data Scientist', 'Data Engineer', 'Machine Learning Engineer', 'Data Analyst', 'Analytics Engineer', 'Research Scientist'],
    skills: ['Python', 'SQL', 'Machine Learning', 'Deep Learning', 'PyTorch', 'TensorFlow', 'Spark', 'Airflow', 'dbt', 'Statistics', 'Pandas', 'Tableau', 'NLP', 'Computer Vision', 'Snowflake', 'BigQuery'],
    fields: ['Statistics', 'Computer Science', 'Mathematics', 'Physics', 'Economics'] },
  { name: 'product', weight: 8, titles: ['Product Manager', 'Product Owner', 'Technical Product Manager', 'Product Designer', 'UX Researcher', 'UX Designer'],
    skills: ['Product Strategy', 'Roadmapping', 'User Research', 'Figma', 'A/B Testing', 'Agile', 'Scrum', 'Analytics', 'Prototyping', 'Design Systems', 'Stakeholder Management'],
    fields: ['Business Administration', 'Design', 'Psychology', 'Computer Science'] },
  { name: 'sales', weight: 12, titles: ['Account Executive', 'Sales Development Representative', 'Account Manager', 'Sales Engineer', 'Business Development Manager', 'Customer Success Manager'],
    skills: ['B2B Sales', 'Salesforce', 'Negotiation', 'Lead Generation', 'SaaS', 'CRM', 'Account Management', 'Cold Calling', 'Pipeline Management', 'HubSpot', 'Enterprise Sales'],
    fields: ['Business Administration', 'Marketing', 'Communications', 'Economics'] },
  { name: 'marketing', weight: 9, titles: ['Marketing Manager', 'Growth Marketer', 'Content Strategist', 'SEO Specialist', 'Brand Manager', 'Product Marketing Manager'],
    skills: ['SEO', 'SEM', 'Content Marketing', 'Google Analytics', 'Social Media', 'Email Marketing', 'Copywriting', 'Brand Strategy', 'Marketing Automation', 'Paid Advertising', 'HubSpot'],
    fields: ['Marketing', 'Communications', 'Journalism', 'Business Administration'] },
  { name: 'finance', weight: 8, titles: ['Financial Analyst', 'Accountant', 'Controller', 'Investment Analyst', 'Risk Analyst', 'FP&A Manager'],
    skills: ['Financial Modeling', 'Excel', 'IFRS', 'GAAP', 'Budgeting', 'Forecasting', 'SAP', 'Valuation', 'Risk Management', 'Auditing', 'Tax'],
    fields: ['Finance', 'Accounting', 'Economics', 'Mathematics'] },
  { name: 'people', weight: 6, titles: ['Recruiter', 'Talent Acquisition Partner', 'HR Business Partner', 'People Operations Manager', 'Technical Recruiter'],
    skills: ['Recruiting', 'Sourcing', 'Interviewing', 'Employer Branding', 'HRIS', 'Onboarding', 'Compensation', 'Employee Relations', 'Workday', 'Greenhouse'],
    fields: ['Human Resources', 'Psychology', 'Business Administration'] },
  { name: 'operations', weight: 7, titles: ['Operations Manager', 'Project Manager', 'Supply Chain Analyst', 'Program Manager', 'Logistics Coordinator'],
    skills: ['Project Management', 'Lean', 'Six Sigma', 'Supply Chain', 'Logistics', 'Process Improvement', 'PMP', 'Jira', 'Vendor Management', 'ERP'],
    fields: ['Industrial Engineering', 'Business Administration', 'Operations Research'] },
  { name: 'healthcare', weight: 5, titles: ['Registered Nurse', 'Clinical Research Associate', 'Pharmacist', 'Physician', 'Medical Scientist'],
    skills: ['Patient Care', 'Clinical Trials', 'GCP', 'Pharmacology', 'Epidemiology', 'EHR', 'Regulatory Affairs', 'Biostatistics'],
    fields: ['Nursing', 'Medicine', 'Pharmacy', 'Biology', 'Public Health'] },
  { name: 'security', weight: 5, titles: ['Security Engineer', 'Security Analyst', 'Penetration Tester', 'Cloud Security Architect'],
    skills: ['Penetration Testing', 'SIEM', 'Threat Modeling', 'Incident Response', 'Cryptography', 'IAM', 'SOC 2', 'ISO 27001', 'Network Security', 'AWS', 'Python'],
    fields: ['Computer Science', 'Information Security', 'Mathematics'] },
];

/** Title shape per seniority: a prefix for individual contributors, or a management title. */
export const SENIORITY_TITLES: Record<string, (base: string, family: string) => string> = {
  intern: (b) => `${b} Intern`,
  junior: (b) => `Junior ${b}`,
  mid: (b) => b,
  senior: (b) => `Senior ${b}`,
  lead: (b) => `Lead ${b}`,
  manager: (_b, f) => `${FAMILY_LABEL[f]} Manager`,
  director: (_b, f) => `Director of ${FAMILY_LABEL[f]}`,
  vp: (_b, f) => `VP of ${FAMILY_LABEL[f]}`,
  executive: (_b, f) => EXECUTIVE_TITLE[f],
};

const FAMILY_LABEL: Record<string, string> = {
  software: 'Engineering', data: 'Data', product: 'Product', sales: 'Sales', marketing: 'Marketing', finance: 'Finance',
  people: 'People', operations: 'Operations', healthcare: 'Clinical Operations', security: 'Security',
};

const EXECUTIVE_TITLE: Record<string, string> = {
  software: 'Chief Technology Officer', data: 'Chief Data Officer', product: 'Chief Product Officer', sales: 'Chief Revenue Officer',
  marketing: 'Chief Marketing Officer', finance: 'Chief Financial Officer', people: 'Chief People Officer', operations: 'Chief Operating Officer',
  healthcare: 'Chief Medical Officer', security: 'Chief Information Security Officer',
};

const COMPANY_A = ['Acme', 'Northwind', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Hooli', 'Vandelay', 'Soylent', 'Cyberdyne', 'Tyrell', 'Aperture', 'Massive', 'Blue Harbor', 'Redwood', 'Silver Peak', 'Nimbus', 'Quantum Leaf', 'Brightline', 'Crescent', 'Evergreen', 'Helix', 'Ionic', 'Juniper', 'Kestrel', 'Lumen', 'Meridian', 'Nova', 'Orbit', 'Pioneer', 'Quarry', 'Riverstone', 'Summit', 'Tidal', 'Vertex', 'Willow', 'Zenith', 'Atlas', 'Beacon'];
const COMPANY_B = ['Labs', 'Systems', 'Technologies', 'Analytics', 'Health', 'Capital', 'Logistics', 'Software', 'Networks', 'Bank', 'Retail', 'Robotics', 'Energy', 'Media', 'Bio', 'Cloud', 'Consulting', 'Motors', 'Foods', 'Insurance'];
/** 800 company names, stable order. */
export const COMPANIES: string[] = COMPANY_A.flatMap((a) => COMPANY_B.map((b) => `${a} ${b}`));

export const SCHOOLS = ['Stanford University', 'MIT', 'University of Oxford', 'University of Cambridge', 'ETH Zurich', 'TU Munich', 'Sorbonne University', 'Universidad de Buenos Aires', 'IIT Bombay', 'IIT Delhi', 'Tsinghua University', 'Peking University', 'University of Tokyo', 'University of Lagos', 'University of Cape Town', 'American University in Cairo', 'Universidade de São Paulo', 'University of Warsaw', 'KTH Royal Institute of Technology', 'Seoul National University', 'University of Toronto', 'University of Melbourne', 'National University of Singapore', 'Trinity College Dublin', 'Universidad Complutense de Madrid', 'UNAM', 'University of Nairobi', 'Delft University of Technology', 'University of Copenhagen', 'UC Berkeley', 'Carnegie Mellon University', 'Georgia Tech'];

export const DEGREES = ['BSc', 'BA', 'BEng', 'MSc', 'MA', 'MBA', 'PhD'];

export const EXTRA_LANGUAGES = ['English', 'Spanish', 'French', 'German', 'Mandarin', 'Arabic', 'Portuguese', 'Japanese', 'Italian', 'Dutch', 'Russian', 'Hindi'];
